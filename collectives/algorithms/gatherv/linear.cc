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

namespace kcoll {

absl::Status LinearGatherV(const CollectiveArgs& args, Resources& res) {
  const int n = res.topology.nranks, r = res.topology.rank;
  const size_t elem = DataTypeSize(args.type);
  if (r != args.root) {
    KCOLL_RETURN_IF_ERROR(res.transport.Send(args.root, args.send, args.count * elem, /*tag=*/0).status());
    return res.transport.WaitAll();
  }
  char* out = static_cast<char*>(args.recv);
  for (int j = 0; j < n; ++j) {
    if (j == r) continue;
    KCOLL_RETURN_IF_ERROR(
        res.transport.Recv(j, out + args.recv_displs[j] * elem, args.recv_counts[j] * elem, /*tag=*/0).status());
  }
  KCOLL_RETURN_IF_ERROR(CopyUnlessSame(res.kernels, out + args.recv_displs[r] * elem, args.send, args.count * elem));
  return res.transport.WaitAll();
}

}  // namespace kcoll
