// ScatterV (MPI_Scatterv): the sendcounts[j] elements at senddispls[j] of the root's send land in rank j's recv; the
// counts and displacements are the root's alone.
//
// Linear ScatterV (kLinear): the root posts a send of every other rank's block straight from its place and copies
// its own while they leave; every other rank receives its block from the root. n-1 messages over the root's link, as
// MPI libraries do (a tree would need the counts only the root has). In place on the root (recv == send +
// senddispls[root]) skips the copy.
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/local_copy.h"
#include "collectives/algorithms/engines/v_blocks.h"

namespace kcoll {

absl::Status LinearScatterV(const CollectiveArgs& args, Resources& res) {
  const int n = res.topology.nranks, r = res.topology.rank;
  const size_t bytes = args.count * DataTypeSize(args.type);
  if (r != args.root) {
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(args.root, args.recv, bytes, /*tag=*/0).status());
    return res.transport.WaitAll();
  }
  for (int j = 0; j < n; ++j) {
    if (j == r) continue;
    KCOLL_RETURN_IF_ERROR(res.transport.Send(j, SendBlock(args, j), SendBytes(args, j), /*tag=*/0).status());
  }
  KCOLL_RETURN_IF_ERROR(CopyUnlessSame(res.kernels, args.recv, SendBlock(args, r), bytes));
  return res.transport.WaitAll();
}

}  // namespace kcoll
