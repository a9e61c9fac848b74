#include "bench/calibration/calibrate_in_run.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "calibration/calibrate.h"
#include "calibration/profile.h"
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
