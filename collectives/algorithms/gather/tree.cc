// Binomial-tree Gather (kTree).
// Ranks are numbered relative to the root (v = rank - root mod n) and arranged in the binomial tree of
// engines/binomial_tree.h, where the subtree of v is the contiguous range [v, v + lowbit(v)). This is the topology's
// binomial tree shape, but over rank order instead of ring order: the blocks of a subtree must be contiguous in the
// rank-ordered buffers.
// Each rank collects its subtree's blocks (its children's subtrees arrive in one message each, straight into place
// in a scratch buffer) and sends them to its parent in one message. The root works in relative order and rotates to
// rank order with one local copy (none when the root is rank 0). Fewer latencies than linear, the same volume at the
// root: the choice for small blocks and many ranks.
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/binomial_tree.h"
#include "collectives/algorithms/engines/local_copy.h"

namespace kcoll {

absl::Status TreeGather(const CollectiveArgs& args, Resources& res) {
  const RelativeTree tree(res.topology.rank, args.root, res.topology.nranks);
  const int n = tree.n, v = tree.v, root = args.root;
  const size_t bytes = args.count * DataTypeSize(args.type);
  char* out = static_cast<char*>(args.recv);
  if (bytes == 0) return absl::OkStatus();
  if (tree.node.children.empty()) {
    if (v == 0) return CopyUnlessSame(res.kernels, out + root * bytes, args.send, bytes);  // n == 1
    KCOLL_RETURN_IF_ERROR(res.transport.Send(tree.RankOf(tree.node.parent), args.send, bytes, /*tag=*/0).status());
    return res.transport.WaitAll();
  }

  // This rank's subtree's blocks, in relative order. At a root of rank 0 that is the receive buffer itself.
  const size_t subtree_bytes = static_cast<size_t>(tree.node.subtree_end - v) * bytes;
  char* gathered = out;
  if (v != 0 || root != 0) {
    KCOLL_ASSIGN_OR_RETURN(void* scratch, res.kernels.Scratch(0, subtree_bytes));
    gathered = static_cast<char*>(scratch);
  }
  for (int child : tree.node.children) {
    const size_t child_bytes = static_cast<size_t>(tree.SubtreeEnd(child) - child) * bytes;
    KCOLL_RETURN_IF_ERROR(
        res.transport.Recv(tree.RankOf(child), gathered + (child - v) * bytes, child_bytes, /*tag=*/0).status());
  }
  KCOLL_RETURN_IF_ERROR(CopyUnlessSame(res.kernels, gathered, args.send, bytes));
  KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
  if (v != 0) {
    KCOLL_RETURN_IF_ERROR(
        res.transport.Send(tree.RankOf(tree.node.parent), gathered, subtree_bytes, /*tag=*/0).status());
    return res.transport.WaitAll();
  }
  if (root == 0) return absl::OkStatus();
  // Relative position j is rank (j + root) mod n: two contiguous pieces.
  KCOLL_RETURN_IF_ERROR(res.kernels.Copy(out + root * bytes, gathered, (n - root) * bytes));
  return res.kernels.Copy(out, gathered + (n - root) * bytes, root * bytes);
}

}  // namespace kcoll
