// The latency floor of one node, measured in the run: every rank writes a value and a sequence number into a cache
// line of its own in memory the node's ranks share and spins until every peer's line shows the same sequence, then
// sums the values: an 8-byte AllReduce with no library at all, one cache-line transfer from each rank to each other,
// all at once. No AllReduce on these ranks can finish faster, so it bounds the `ideal` column's time for small sizes
// as the memory-bound limit bounds it for large ones.
#ifndef KCOLL_BENCH_MODEL_LATENCY_PROBE_H_
#define KCOLL_BENCH_MODEL_LATENCY_PROBE_H_

#include <mpi.h>

#include <string>

#include "absl/status/statusor.h"

namespace kcoll {
namespace bench {

struct LatencyFloor {
  double seconds = 0;  // per exchange: the slowest rank's median over batches
  int exchanges = 0;   // timed, in batches of kBatch
  bool spun = true;    // false when ranks outnumber cores and waits yielded the core instead
  std::string Describe(int nranks) const;  // for the report's header
};

// Collective over `comm`, whose ranks share one host. InvalidArgument for exchanges < 100; DeadlineExceeded when
// a peer did not answer within 10 s (it stopped, or the ranks are not on one host).
absl::StatusOr<LatencyFloor> MeasureLatencyFloor(MPI_Comm comm, int exchanges = 20000);

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_MODEL_LATENCY_PROBE_H_
