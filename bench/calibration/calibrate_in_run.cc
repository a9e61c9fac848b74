#include "bench/calibration/calibrate_in_run.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "calibration/calibrate.h"
#include "calibration/profile.h"
#include "calibration/shm_settings.h"
#include "collectives/topology/discover.h"
#include "collectives/transport/mpi/mpi_transport.h"
#include "collectives/transport/shm/shm_transport.h"
#include "collectives/transport_choice.h"
#include "models/profile_json.h"

namespace kcoll {
namespace bench {

using calibration::Calibrate;
using calibration::CalibrationOptions;
using calibration::CalibrationResult;
using calibration::FitAll;
using calibration::MakeProfile;
namespace {

// Rank 0's part once the measurements are in: fit, build and save the profile.
absl::Status SaveMeasured(CalibrationResult& result, const std::string& path, std::string* summary) {
  KCOLL_RETURN_IF_ERROR(FitAll(result));
  KCOLL_ASSIGN_OR_RETURN(models::Profile profile, MakeProfile(result));
  KCOLL_RETURN_IF_ERROR(models::SaveProfile(profile, path));
  *summary = absl::StrFormat("%s; intra-node %.3g GB/s, inter-node %.3g GB/s at their fastest size", path,
                             profile.intra.PeakBytesPerSecond() / 1e9, profile.inter.PeakBytesPerSecond() / 1e9);
  return absl::OkStatus();
}

absl::Status Measure(MPI_Comm comm, const std::string& path, int ranks_per_node, ExecBackend backend,
                     const CalibrationOptions& options, std::string* summary) {
  TopologyOptions topology_options;
  topology_options.ranks_per_node = ranks_per_node;
  KCOLL_ASSIGN_OR_RETURN(Topology topology, DiscoverTopology(comm, topology_options));
  KCOLL_ASSIGN_OR_RETURN(CalibrationResult result, CalibrateOnComm(comm, topology, backend, options));
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank == 0 ? SaveMeasured(result, path, summary) : absl::OkStatus();
}

// The first failing rank's status on every rank.
absl::Status Agree(const absl::Status& mine, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const int failed_here = mine.ok() ? -1 : rank;
  int first_failed = -1;
  int candidate = failed_here < 0 ? INT32_MAX : failed_here;
  MPI_Allreduce(&candidate, &first_failed, 1, MPI_INT, MPI_MIN, comm);
  if (first_failed == INT32_MAX) return absl::OkStatus();
  std::string message(mine.message());
  int length = static_cast<int>(message.size());
  MPI_Bcast(&length, 1, MPI_INT, first_failed, comm);
  message.resize(length);
  MPI_Bcast(message.data(), length, MPI_CHAR, first_failed, comm);
  return absl::Status(rank == first_failed ? mine.code() : absl::StatusCode::kAborted,
                      absl::StrFormat("--calibrate (rank %d): %s", first_failed, message));
}

// A shared-memory execution on `comm` with exactly `settings` (pinned: the variables do not change them).
absl::StatusOr<Execution> ShmExecutionWith(MPI_Comm comm, const Topology& topology, ExecBackend backend,
                                           ExecutionRequest::ShmSettings settings) {
  ExecutionRequest request;
  KCOLL_ASSIGN_OR_RETURN(request.mpi, MpiTransport::Create(comm));
  request.backend = backend;
  request.node_of = topology.node_of;
  request.shm = std::move(settings);
  request.shm.source = "calibration";
  request.shm.pinned = true;
  return MakeExecution(TransportKind::kShm, std::move(request));
}

// The ring step of every intra-node pair through a shared-memory execution pinned to each of `settings`, interleaved
// pass by pass; each execution is made for its turn and released after it, so that one segment at a time is mapped
// (a 4-rank node's with 256 KiB slots takes 32 MiB). Per setting, the fastest pass of each size (on rank 0).
absl::StatusOr<std::vector<calibration::Series>> RingStepsWith(
    MPI_Comm comm, MPI_Comm control, const Topology& topology, ExecBackend backend,
    const std::vector<ExecutionRequest::ShmSettings>& settings, const std::vector<std::pair<int, int>>& pairs,
    const std::vector<double>& sizes, const CalibrationOptions& options) {
  CalibrationOptions pass_options = options;
  pass_options.seconds_per_size = options.seconds_per_size / options.passes;
  std::vector<std::vector<calibration::Series>> passes(settings.size());
  for (int pass = 0; pass < options.passes; ++pass) {
    for (size_t e = 0; e < settings.size(); ++e) {
      KCOLL_ASSIGN_OR_RETURN(Execution execution, ShmExecutionWith(comm, topology, backend, settings[e]));
      KCOLL_ASSIGN_OR_RETURN(
          calibration::Series s,
          calibration::MeasureRingStep(*execution.transport, *execution.kernels, control, pairs, sizes, pass_options));
      passes[e].push_back(std::move(s));
    }
  }
  std::vector<calibration::Series> fastest;
  for (const auto& p : passes) fastest.push_back(calibration::FastestOf(p));
  return fastest;
}

// With shared memory between a node's ranks: the transport's slot size, then its single-copy threshold
// (calibration/shm_settings.h), each timed on executions of the transport pinned to the setting measured.
// Collective over `comm`; the result goes to rank 0's `result`.
absl::Status MeasureShmSettings(MPI_Comm comm, MPI_Comm control, const Topology& topology, ExecBackend backend,
                                size_t default_slot_bytes, const CalibrationOptions& options,
                                calibration::ShmSettingsMeasurement& shm) {
  const std::vector<std::pair<int, int>> pairs = calibration::ExchangePairs(topology, calibration::LinkClass::kIntra);
  if (pairs.empty()) {
    shm.skipped = "no two ranks share a node";
    return absl::OkStatus();
  }
  const std::vector<double> sizes = calibration::SweepSizes(std::min(calibration::kShmSweepMinBytes, options.max_bytes),
                                                            options.max_bytes, options.step_factor);
  // Every rank tries the same candidates: those the largest node has room for, around rank 0's default.
  const ShmOptions defaults;
  const int node_ranks = *std::max_element(topology.local_rank_of.begin(), topology.local_rank_of.end()) + 1;
  unsigned long long rank0_default = default_slot_bytes;
  MPI_Bcast(&rank0_default, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
  default_slot_bytes = static_cast<size_t>(rank0_default);
  shm.default_slot_bytes = default_slot_bytes;
  shm.slot_candidates = calibration::SlotBytesCandidates(node_ranks, ShmOptions::kMinSlots, defaults.max_segment_bytes,
                                                         default_slot_bytes);
  std::vector<ExecutionRequest::ShmSettings> slot_settings;
  for (size_t bytes : shm.slot_candidates) {
    ExecutionRequest::ShmSettings settings;
    settings.slot_bytes = bytes;
    settings.single_copy_bytes = 0;
    slot_settings.push_back(settings);
  }
  KCOLL_ASSIGN_OR_RETURN(shm.slot_series,
                         RingStepsWith(comm, control, topology, backend, slot_settings, pairs, sizes, options));
  // Rank 0 alone has the times: it chooses, and tells the others (the single-copy sweep runs on that size).
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  unsigned long long chosen =
      rank == 0 ? calibration::ChooseSlotBytes(shm.slot_candidates, shm.slot_series, default_slot_bytes) : 0;
  MPI_Bcast(&chosen, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
  shm.slot_bytes = static_cast<size_t>(chosen);

  // Single copy, where the kernel lets the ranks read each other's memory, against the chosen slots in the same passes.
  ExecutionRequest::ShmSettings slots;
  slots.slot_bytes = shm.slot_bytes;
  slots.single_copy_bytes = 0;
  ExecutionRequest::ShmSettings single = slots;
  single.single_copy_bytes = 1;
  int available = 0;
  {
    KCOLL_ASSIGN_OR_RETURN(Execution probe, ShmExecutionWith(comm, topology, backend, single));
    available = probe.shm_single_copy_bytes > 0 ? 1 : 0;
  }
  MPI_Allreduce(MPI_IN_PLACE, &available, 1, MPI_INT, MPI_MIN, comm);
  if (!available) {
    shm.single_copy_skipped = "the kernel does not let the ranks read each other's memory (process_vm_readv)";
    return absl::OkStatus();
  }
  KCOLL_ASSIGN_OR_RETURN(std::vector<calibration::Series> both,
                         RingStepsWith(comm, control, topology, backend, {slots, single}, pairs, sizes, options));
  shm.single_copy_slots = std::move(both[0]);
  shm.single_copy = std::move(both[1]);
  shm.single_copy_threshold = calibration::ChooseSingleCopyThreshold(shm.single_copy_slots, shm.single_copy);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Execution> MeasuredExecution(MPI_Comm comm, const Topology& topology, ExecBackend backend,
                                            TransportKind kind) {
  ExecutionRequest request;
  KCOLL_ASSIGN_OR_RETURN(request.mpi, MpiTransport::Create(comm));
  request.backend = backend;
  request.node_of = topology.node_of;
  return MakeExecution(kind, std::move(request));
}

absl::StatusOr<CalibrationResult> CalibrateOnComm(MPI_Comm comm, const Topology& topology, ExecBackend backend,
                                                  const CalibrationOptions& options) {
  // The transport and kernels a communicator on these ranks would run on, built by the same factories.
  KCOLL_ASSIGN_OR_RETURN(std::optional<TransportKind> asked, ChooseTransportKind(options.transport));
  const TransportKind kind = asked.value_or(AutoTransport(topology, backend));
  KCOLL_ASSIGN_OR_RETURN(Execution execution, MeasuredExecution(comm, topology, backend, kind));
  MPI_Comm control;
  MPI_Comm_dup(comm, &control);
  absl::StatusOr<CalibrationResult> result =
      Calibrate(*execution.transport, *execution.kernels, control, topology, options);
  if (result.ok() && kind == TransportKind::kShm) {
    const absl::Status measured =
        MeasureShmSettings(comm, control, topology, backend, execution.shm_slot_bytes, options, result->shm);
    if (!measured.ok()) result = measured;
  } else if (result.ok()) {
    result->shm.skipped = absl::StrCat("measured through ", TransportKindName(kind), ", not shared memory");
  }
  MPI_Comm_free(&control);
  if (result.ok()) {
    result->transport = std::string(execution.transport->name());
    result->transport_kind = kind;
  }
  return result;
}

absl::Status CalibrateIntoFile(MPI_Comm comm, const std::string& path, int ranks_per_node, ExecBackend backend,
                               const CalibrationOptions& sweep, std::string* summary) {
  const auto start = std::chrono::steady_clock::now();
  std::string measured;
  absl::Status status = Agree(Measure(comm, path, ranks_per_node, backend, sweep, &measured), comm);
  if (status.ok() && summary != nullptr) {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    *summary = absl::StrFormat("profile measured in this run in %.1f s (//bench:calibrate's sweep), saved to %s",
                               seconds, measured);
  }
  return status;
}

}  // namespace bench
}  // namespace kcoll
