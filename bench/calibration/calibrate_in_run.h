// Measuring a profile in running ranks: //bench:calibrate's, and the benchmarks' with --calibrate, where they measure
// it before the cases so that the model, the ideal busbw and auto's choice describe the machine as it is during the
// run (same ranks, binding, load and, on a virtual machine, the same placement of its cores on the host), not as it
// was when a saved profile was measured.
#ifndef KCOLL_BENCH_CALIBRATION_CALIBRATE_IN_RUN_H_
#define KCOLL_BENCH_CALIBRATION_CALIBRATE_IN_RUN_H_

#include <mpi.h>

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/topology.h"
#include "base/transport_kind.h"
#include "calibration/calibrate.h"
#include "collectives/kernels/backend.h"
#include "collectives/transport/execution.h"

namespace kcoll {
namespace bench {

// The transport of `kind` on `comm` with `backend`'s kernels, built by the factories a communicator on `comm` uses
// (collective): what the calibration measures through, and what the benchmarks' link probe must time to compare
// with it.
absl::StatusOr<Execution> MeasuredExecution(MPI_Comm comm, const Topology& topology, ExecBackend backend,
                                            TransportKind kind);

// Calibrate() over `comm` (collective) with the transport a communicator on `comm` would run on (options.transport,
// else KCOLL_TRANSPORT, else auto), built on `comm` by the same factories, `backend`'s kernels and a duplicate of
// `comm` for the measurement's own messages: what //bench:calibrate and --calibrate both run. The result is complete
// on rank 0.
absl::StatusOr<calibration::CalibrationResult> CalibrateOnComm(MPI_Comm comm, const Topology& topology,
                                                               ExecBackend backend,
                                                               const calibration::CalibrationOptions& options);

// Runs //bench:calibrate's sweep with `sweep` (fits on relative errors) over `comm` with emulated nodes of
// `ranks_per_node` ranks (0: MPI's nodes) and `backend`'s kernels, and saves the profile to `path`. Collective over
// `comm`; every rank returns the same status (the message of the rank that failed). On success rank 0's `summary`
// says what was measured and where it went.
absl::Status CalibrateIntoFile(MPI_Comm comm, const std::string& path, int ranks_per_node, ExecBackend backend,
                               const calibration::CalibrationOptions& sweep, std::string* summary);

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_CALIBRATION_CALIBRATE_IN_RUN_H_
