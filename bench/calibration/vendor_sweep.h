// The calibration's last sweep (calibration/vendor_sizes.h): kcoll's `auto`, on a communicator that prices with the
// profile just measured, against MPI_Allreduce through the same communicator (the vendor algorithm: what `auto` would
// run in its place, kcoll's call included), at each size of the sweep, in place and out of place. Passes alternate
// the two sides size by size; each size keeps its fastest pass, timed as the slowest rank's. Where the winner changes
// between two sizes, the sizes between them are measured too (calibration::SizesBetweenWinners), so that the sizes
// handed to MPI end within `finest_factor` of where MPI stops winning.
#ifndef KCOLL_BENCH_CALIBRATION_VENDOR_SWEEP_H_
#define KCOLL_BENCH_CALIBRATION_VENDOR_SWEEP_H_

#include <mpi.h>

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "base/transport_kind.h"
#include "calibration/vendor_sizes.h"
#include "models/machine.h"

namespace kcoll {
namespace bench {

struct VendorSweepOptions {
  double min_bytes = 8;
  double max_bytes = double{64 << 20};
  double step_factor = 4;
  double finest_factor = 2;  // where the winner changes, sizes between until neighbours are at most this far apart
  int passes = 3;
  int ranks_per_node = 0;                  // emulated nodes, as the calibration ran
  std::optional<TransportKind> transport;  // as the calibration ran
};

// Collective over `comm`; every rank passes the same `profile` (rank 0's, broadcast). The points are every rank's
// (the slowest rank's times), in increasing size. float sums of the sweep's sizes, rounded down to whole floats.
// InvalidArgument unless finest_factor > 1.
absl::StatusOr<std::vector<calibration::VendorPoint>> MeasureVendorSweep(MPI_Comm comm, const models::Profile& profile,
                                                                         const VendorSweepOptions& options);

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_CALIBRATION_VENDOR_SWEEP_H_
