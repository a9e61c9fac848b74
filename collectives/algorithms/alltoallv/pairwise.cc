// AllToAllV: the sendcounts[j] elements at senddispls[j] of rank i's send buffer land at recvdispls[i] of rank j's
// receive buffer, whose recvcounts[i] must equal them (MPI_Alltoallv).
//
// Pairwise AllToAllV (kPairwise): the pairwise AllToAll with blocks of their own sizes. Each rank copies its own
// block across, then in step s (s = 1..n-1) sends its block for rank r+s and receives the block rank r-s has for it,
// straight into its place, and waits for both before the next step. Every step is a permutation of the ranks, so no
// rank is flooded however many ranks there are: n-1 latencies, each rank's link carrying its own blocks once. Empty
// blocks travel as zero-byte messages so both sides agree. Send and receive buffers are separate (no in place).
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/local_copy.h"
#include "collectives/algorithms/engines/partition.h"
#include "collectives/algorithms/engines/v_blocks.h"

namespace kcoll {

absl::Status PairwiseAllToAllV(const CollectiveArgs& args, Resources& res) {
  const int n = res.topology.nranks, r = res.topology.rank;
  KCOLL_RETURN_IF_ERROR(CopyUnlessSame(res.kernels, RecvBlock(args, r), SendBlock(args, r), SendBytes(args, r)));
  for (int s = 1; s < n; ++s) {
    const int to = Mod(r + s, n), from = Mod(r - s, n);
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(from, RecvBlock(args, from), RecvBytes(args, from), /*tag=*/0).status());
    KCOLL_RETURN_IF_ERROR(res.transport.Send(to, SendBlock(args, to), SendBytes(args, to), /*tag=*/0).status());
    KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
  }
  return absl::OkStatus();
}

}  // namespace kcoll
