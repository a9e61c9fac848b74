// GatherV (MPI_Gatherv): every rank's sendcount elements land at recvdispls[j] of the root's recv; the counts and
// displacements are the root's alone.
//
// Linear GatherV (kLinear): the root posts a receive from every other rank straight into its place and copies its
// own block while they arrive; every other rank sends its block to the root. The root's link carries everything, in
// n-1 messages: what MPI libraries run too, since only the root knows the counts a tree would need to split its
// subtrees. In place on the root (send == recv + recvdispls[root]) skips the copy.
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/local_copy.h"
#include "collectives/algorithms/engines/v_blocks.h"

namespace kcoll {

absl::Status LinearGatherV(const CollectiveArgs& args, Resources& res) {
  const size_t bytes = args.count * DataTypeSize(args.type);
  if (res.topology.rank == args.root) {
    KCOLL_RETURN_IF_ERROR(PostReceivesFromEveryPeer(args, res));
    KCOLL_RETURN_IF_ERROR(CopyUnlessSame(res.kernels, RecvBlock(args, args.root), args.send, bytes));
  } else {
    KCOLL_RETURN_IF_ERROR(res.transport.Send(args.root, args.send, bytes, /*tag=*/0).status());
  }
  return res.transport.WaitAll();
}

}  // namespace kcoll
