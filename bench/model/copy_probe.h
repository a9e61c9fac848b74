// The memory-bound limit of one node, measured in the run: every rank copies a buffer larger than the caches
// (memcpy) at the same time, as a collective's copies through shared memory would. A schedule that moves each of
// its bytes by one copy cannot beat this rate, so on one node it is the `ideal` column's intra-node bandwidth when
// neither --intra_bw nor a profile gives one.
#ifndef KCOLL_BENCH_MODEL_COPY_PROBE_H_
#define KCOLL_BENCH_MODEL_COPY_PROBE_H_

#include <mpi.h>

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"

namespace kcoll {
namespace bench {

struct CopyBandwidth {
  double gbps_per_rank = 0;  // bytes copied per second by the slowest rank, in GB/s (median of its repeats)
  size_t bytes = 0;          // per copy
  int repeats = 0;
  std::string Describe(int nranks) const;  // for the report's header
};

// Collective over `comm`. InvalidArgument for bytes == 0 or repeats < 1.
absl::StatusOr<CopyBandwidth> MeasureCopyBandwidth(MPI_Comm comm, size_t bytes = size_t{64} << 20, int repeats = 5);

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_MODEL_COPY_PROBE_H_
