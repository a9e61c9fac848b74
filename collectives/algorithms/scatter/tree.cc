// Binomial-tree Scatter (kTree), Gather's tree run backwards.
// Ranks are numbered relative to the root (v = rank - root mod n) and arranged in the binomial tree of
// engines/binomial_tree.h, where the subtree of v is the contiguous range [v, v + lowbit(v)). This is the topology's
// binomial tree shape, but over rank order instead of ring order: the blocks of a subtree must be contiguous in the
// rank-ordered buffers.
// Each rank receives its subtree's blocks from its parent and hands each child its sub-range. The root rotates its
// buffer to relative order with one local copy (none when the root is rank 0).
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/binomial_tree.h"
#include "collectives/algorithms/engines/local_copy.h"

namespace kcoll {

absl::Status TreeScatter(const CollectiveArgs& args, Resources& res) {
  const RelativeTree tree(res.topology.rank, args.root, res.topology.nranks);
  const int n = tree.n, v = tree.v, root = args.root;
  const size_t bytes = args.count * DataTypeSize(args.type);
  if (bytes == 0) return absl::OkStatus();
  if (v != 0 && tree.node.children.empty()) {
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(tree.RankOf(tree.node.parent), args.recv, bytes, /*tag=*/0).status());
    return res.transport.WaitAll();
  }

  // This rank's subtree's blocks, in relative order. At a root of rank 0 that is the send buffer itself.
  const size_t subtree_bytes = static_cast<size_t>(tree.node.subtree_end - v) * bytes;
  const char* blocks = static_cast<const char*>(args.send);
  if (v != 0 || root != 0) {
    KCOLL_ASSIGN_OR_RETURN(void* scratch_ptr, res.kernels.Scratch(0, subtree_bytes));
    char* scratch = static_cast<char*>(scratch_ptr);
    if (v == 0) {
      const char* in = static_cast<const char*>(args.send);
      KCOLL_RETURN_IF_ERROR(res.kernels.Copy(scratch, in + root * bytes, (n - root) * bytes));
      KCOLL_RETURN_IF_ERROR(res.kernels.Copy(scratch + (n - root) * bytes, in, root * bytes));
    } else {
      KCOLL_RETURN_IF_ERROR(
          res.transport.Recv(tree.RankOf(tree.node.parent), scratch, subtree_bytes, /*tag=*/0).status());
      KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
    }
    blocks = scratch;
  }
  for (int child : tree.node.children) {
    const size_t child_bytes = static_cast<size_t>(tree.SubtreeEnd(child) - child) * bytes;
    KCOLL_RETURN_IF_ERROR(
        res.transport.Send(tree.RankOf(child), blocks + (child - v) * bytes, child_bytes, /*tag=*/0).status());
  }
  KCOLL_RETURN_IF_ERROR(CopyUnlessSame(res.kernels, args.recv, blocks, bytes));
  return res.transport.WaitAll();
}

}  // namespace kcoll
