// Linear AllToAllV (kLinear): every rank posts all its receives, straight into their places, and all its sends at
// once, copies its own block across while they move, and waits for everything. One round with n-1 messages per rank
// in flight: the fewest steps, for small blocks and few ranks, where pairwise's n-1 waits cost more than the data;
// with many ranks every rank receives from all of them at once. Peers in the order r+1, r+2, ... (receiving from r-1,
// r-2, ...) so that no rank is everyone's first. Separate buffers (no in place).
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/local_copy.h"
#include "collectives/algorithms/engines/partition.h"
#include "collectives/algorithms/engines/v_blocks.h"

namespace kcoll {

absl::Status LinearAllToAllV(const CollectiveArgs& args, Resources& res) {
  const int n = res.topology.nranks, r = res.topology.rank;
  KCOLL_RETURN_IF_ERROR(PostReceivesFromEveryPeer(args, res));
  for (int s = 1; s < n; ++s) {
    const int to = Mod(r + s, n);
    KCOLL_RETURN_IF_ERROR(res.transport.Send(to, SendBlock(args, to), SendBytes(args, to), /*tag=*/0).status());
  }
  KCOLL_RETURN_IF_ERROR(CopyUnlessSame(res.kernels, RecvBlock(args, r), SendBlock(args, r), SendBytes(args, r)));
  return res.transport.WaitAll();
}

}  // namespace kcoll
