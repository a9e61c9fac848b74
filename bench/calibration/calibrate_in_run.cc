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
#include "calibration/single_copy.h"
#include "collectives/topology/discover.h"
#include "collectives/transport/mpi/mpi_transport.h"
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

// With shared memory between a node's ranks: the transport's single-copy threshold (calibration/single_copy.h),
// timed on two more executions of the same transport, one pinned to the slots and one reading every message from
// the sender's memory, interleaved pass by pass. Collective over `comm`; the result goes to rank 0's `result`.
absl::Status MeasureSingleCopy(MPI_Comm comm, MPI_Comm control, const Topology& topology, ExecBackend backend,
                               const CalibrationOptions& options, CalibrationResult& result) {
  const std::vector<std::pair<int, int>> pairs = calibration::ExchangePairs(topology, calibration::LinkClass::kIntra);
  if (pairs.empty()) {
    result.single_copy.skipped = "no two ranks share a node";
    return absl::OkStatus();
  }
  std::vector<std::unique_ptr<Transport>> transports;
  std::vector<std::unique_ptr<Kernels>> kernels;
  for (size_t threshold : {size_t{0}, size_t{1}}) {
    ExecutionRequest request;
    KCOLL_ASSIGN_OR_RETURN(request.mpi, MpiTransport::Create(comm));
    request.backend = backend;
    request.node_of = topology.node_of;
    request.shm_single_copy = ExecutionRequest::SingleCopySetting{threshold, "calibration", /*pinned=*/true};
    KCOLL_ASSIGN_OR_RETURN(Execution execution, MakeExecution(TransportKind::kShm, std::move(request)));
    int available = threshold == 0 || execution.shm_single_copy_bytes > 0 ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &available, 1, MPI_INT, MPI_MIN, comm);
    if (!available) {
      result.single_copy.skipped =
          "the kernel does not let the ranks read each other's memory (process_vm_readv; ptrace scope)";
      return absl::OkStatus();
    }
    transports.push_back(std::move(execution.transport));
    kernels.push_back(std::move(execution.kernels));
  }
  const std::vector<double> sizes = calibration::SweepSizes(
      std::min(calibration::kSingleCopyMinBytes, options.max_bytes), options.max_bytes, options.step_factor);
  CalibrationOptions pass_options = options;
  pass_options.seconds_per_size = options.seconds_per_size / options.passes;
  std::vector<calibration::Series> slots, single;
  for (int pass = 0; pass < options.passes; ++pass) {
    for (size_t way = 0; way < transports.size(); ++way) {
      KCOLL_ASSIGN_OR_RETURN(calibration::Series s, calibration::MeasureRingStep(*transports[way], *kernels[way],
                                                                                 control, pairs, sizes, pass_options));
      (way == 0 ? slots : single).push_back(std::move(s));
    }
  }
  result.single_copy.slots = calibration::FastestOf(slots);
  result.single_copy.single_copy = calibration::FastestOf(single);
  result.single_copy.threshold =
      calibration::ChooseSingleCopyThreshold(result.single_copy.slots, result.single_copy.single_copy);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CalibrationResult> CalibrateOnComm(MPI_Comm comm, const Topology& topology, ExecBackend backend,
                                                  const CalibrationOptions& options) {
  // The transport and kernels a communicator on these ranks would run on, built by the same factories.
  KCOLL_ASSIGN_OR_RETURN(std::optional<TransportKind> asked, ChooseTransportKind(options.transport));
  ExecutionRequest request;
  KCOLL_ASSIGN_OR_RETURN(request.mpi, MpiTransport::Create(comm));
  request.backend = backend;
  request.node_of = topology.node_of;
  const TransportKind kind = asked.value_or(AutoTransport(topology, backend));
  KCOLL_ASSIGN_OR_RETURN(Execution execution, MakeExecution(kind, std::move(request)));
  MPI_Comm control;
  MPI_Comm_dup(comm, &control);
  absl::StatusOr<CalibrationResult> result =
      Calibrate(*execution.transport, *execution.kernels, control, topology, options);
  if (result.ok() && kind == TransportKind::kShm) {
    const absl::Status measured = MeasureSingleCopy(comm, control, topology, backend, options, *result);
    if (!measured.ok()) result = measured;
  } else if (result.ok()) {
    result->single_copy.skipped = absl::StrCat("measured through ", TransportKindName(kind), ", not shared memory");
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
