// Linear AllGatherV (kLinear): every rank posts its block's send to every other rank and every other rank's
// receive, straight into its place, all at once, then copies its own block in place while they move. One round:
// n-1 messages per rank in flight together, the fewest steps, for small buffers and few ranks; each rank sends its
// block n-1 times, so the rank with the largest block carries the most (the ring spreads it). Rank order; in place
// (send == recv + recvdispls[rank]) skips the copy.
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/local_copy.h"
#include "collectives/algorithms/engines/partition.h"
#include "collectives/algorithms/engines/v_blocks.h"

namespace kcoll {

absl::Status LinearAllGatherV(const CollectiveArgs& args, Resources& res) {
  const int n = res.topology.nranks, r = res.topology.rank;
  const size_t bytes = args.count * DataTypeSize(args.type);
  KCOLL_RETURN_IF_ERROR(PostReceivesFromEveryPeer(args, res));
  for (int s = 1; s < n; ++s) {
    KCOLL_RETURN_IF_ERROR(res.transport.Send(Mod(r + s, n), args.send, bytes, /*tag=*/0).status());
  }
  KCOLL_RETURN_IF_ERROR(CopyUnlessSame(res.kernels, RecvBlock(args, r), args.send, bytes));
  return res.transport.WaitAll();
}

}  // namespace kcoll
