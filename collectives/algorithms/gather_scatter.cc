// Gather: every rank's `count` elements land, in rank order, in the root's receive buffer. Scatter: block r of the
// root's send buffer lands in rank r's receive buffer. Each is the other run backwards.
//
// Linear (kLinear). The root posts all n-1 transfers at once, straight between the user's buffers, and copies its
// own block; every other rank makes one transfer with the root. The root's link carries everything:
//   T = (n-1) alpha + (n-1)/n * N beta         (N = n * count * elem, the root's whole buffer)
// (the n-1 latencies overlap in practice, since the transfers are posted together).
//
// Binomial tree (kTree). Ranks are numbered relative to the root (v = rank - root mod n) and arranged in the
// binomial tree of binomial_tree.h, where the subtree of v is the contiguous range [v, v + lowbit(v)). This is the
// topology's binomial tree shape, but over rank order instead of ring order: the blocks of a subtree must be
// contiguous in the rank-ordered buffers. In Gather
// each rank collects its subtree's blocks (its children's subtrees arrive in one message each, straight into place
// in a scratch buffer) and sends them to its parent in one message; in Scatter each rank receives its subtree's
// blocks from its parent and hands each child its sub-range. The root works in relative order and rotates to rank
// order with one local copy (none when the root is rank 0):
//   T = ceil(log2 n) alpha + (n-1)/n * N beta
// Fewer latencies than linear, the same volume at the root: the choice for small blocks and many ranks.
//
// In place: Gather with send == recv + root * count on the root, Scatter with recv == send + root * count on the
// root; the root's own block then stays where it is.
#include "collectives/algorithms/gather_scatter.h"

#include "base/status_macros.h"
#include "collectives/algorithms/binomial_tree.h"
#include "collectives/algorithms/partition.h"

namespace kcoll {
namespace {

absl::Status CopyUnlessSame(Kernels& kernels, void* dst, const void* src, size_t bytes) {
  return dst == src ? absl::OkStatus() : kernels.Copy(dst, src, bytes);
}

// A rank's place in the binomial tree rooted at `root`, numbered relative to the root.
struct RelativeTree {
  RelativeTree(int rank, int root, int nranks)
      : n(nranks), root(root), v(Mod(rank - root, nranks)), node(BinomialNodeOf(v, nranks)) {}
  int RankOf(int position) const { return (position + root) % n; }
  int SubtreeEnd(int position) const { return BinomialNodeOf(position, n).subtree_end; }

  int n, root, v;
  BinomialNode node;
};

}  // namespace

absl::Status LinearGather(const CollectiveArgs& args, Resources& res) {
  const int n = res.topology.nranks, r = res.topology.rank;
  const size_t bytes = args.count * DataTypeSize(args.type);
  if (bytes == 0) return absl::OkStatus();
  if (r != args.root) {
    KCOLL_RETURN_IF_ERROR(res.transport.Send(args.root, args.send, bytes, /*tag=*/0).status());
    return res.transport.WaitAll();
  }
  char* out = static_cast<char*>(args.recv);
  for (int from = 0; from < n; ++from) {
    if (from != r) KCOLL_RETURN_IF_ERROR(res.transport.Recv(from, out + from * bytes, bytes, /*tag=*/0).status());
  }
  KCOLL_RETURN_IF_ERROR(CopyUnlessSame(res.kernels, out + r * bytes, args.send, bytes));
  return res.transport.WaitAll();
}

absl::Status LinearScatter(const CollectiveArgs& args, Resources& res) {
  const int n = res.topology.nranks, r = res.topology.rank;
  const size_t bytes = args.count * DataTypeSize(args.type);
  if (bytes == 0) return absl::OkStatus();
  if (r != args.root) {
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(args.root, args.recv, bytes, /*tag=*/0).status());
    return res.transport.WaitAll();
  }
  const char* in = static_cast<const char*>(args.send);
  for (int to = 0; to < n; ++to) {
    if (to != r) KCOLL_RETURN_IF_ERROR(res.transport.Send(to, in + to * bytes, bytes, /*tag=*/0).status());
  }
  KCOLL_RETURN_IF_ERROR(CopyUnlessSame(res.kernels, args.recv, in + r * bytes, bytes));
  return res.transport.WaitAll();
}

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
