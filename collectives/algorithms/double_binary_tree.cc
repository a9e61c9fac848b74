// Double binary tree AllReduce (NCCL's tree algorithm).
//
// A binomial tree is latency-optimal but its root receives log2(n) full buffers, and half of the ranks (the leaves)
// only ever send: their receive bandwidth is idle during the reduction. NCCL pairs two binary trees so that the
// ranks that are leaves in one are interior in the other, and gives each tree half of the data. Every rank then
// sends and receives about the same amount in each phase, at most two children feed any rank, and the depth stays
// about log2(n).
//
// Tree construction (labels 0..n-1). Label x > 0 with lowest set bit b sits at height log2(b) of an in-order
// binary tree: its children are x - b/2 and x + b/2, and its parent is x with bit b cleared and bit 2b set (x + b
// or x - b). Labels >= n do not exist; a label whose computed parent does not exist hangs from the nearest existing
// ancestor, which gives it as a right child to a node whose right child was cut off. The highest power of two below
// n is the top of that tree, and label 0 is the root above it with that single child. Every odd label has b = 1
// and is a leaf; every even label except 0 has a left child, so it is interior.
//
// Tree 0 labels position p as p. Tree 1 labels it n-1-p when n is even (the mirror image: p odd <-> label even),
// and (p+1) mod n when n is odd (a shift by one: p odd <-> label even, except the two ends). So every position is
// a leaf in one tree and interior in the other, save one rank for odd n that is interior in both (as the root with
// one child in tree 1). Positions are ranks in the topology's ring order.
//
// The buffer is split into two halves, half t reduced and broadcast on tree t. Both halves are pipelined in chunks
// (tree_pipeline.cc) and advanced in lock step: at tick t each tree reduces chunk t up and broadcasts chunk
// t - lag down, lag = 2 * depth, the chunks it takes a chunk to go up and come back down.
#include "collectives/algorithms/double_binary_tree.h"

#include "collectives/algorithms/chunking.h"
#include "collectives/algorithms/group.h"
#include "collectives/status_macros.h"

namespace kcoll {
namespace {

int InOrderParent(int n, int x) {
  if (x == 0) return -1;
  int top = 1;
  while (top * 2 <= n - 1) top *= 2;
  int b = x & -x;
  while (b < top) {
    const int parent = (x & (2 * b)) != 0 ? x - b : x + b;
    if (parent < n) return parent;
    x = parent;  // a missing node: climb to its parent (its lowest set bit is 2b)
    b *= 2;
  }
  return 0;  // x is the top
}

int LabelOf(int n, int position, int tree) {
  if (tree == 0) return position;
  return n % 2 == 0 ? n - 1 - position : (position + 1) % n;
}

int PositionOf(int n, int label, int tree) {
  if (tree == 0) return label;
  return n % 2 == 0 ? n - 1 - label : (label + n - 1) % n;
}

}  // namespace

TreePositions InOrderBinaryTree(int n, int label) {
  TreePositions t;
  t.parent = InOrderParent(n, label);
  // A right child's subtree is never larger than the left one's: list it first (smallest subtree first).
  for (int y = n - 1; y > 0; --y) {
    if (InOrderParent(n, y) == label) t.children.push_back(y);
  }
  return t;
}

TreePositions DoubleBinaryTreePositions(int n, int index, int tree) {
  const TreePositions labels = InOrderBinaryTree(n, LabelOf(n, index, tree));
  TreePositions t;
  t.parent = labels.parent < 0 ? -1 : PositionOf(n, labels.parent, tree);
  for (int c : labels.children) t.children.push_back(PositionOf(n, c, tree));
  return t;
}

absl::Status DoubleBinaryTreeAllReduce(const CollectiveArgs& args, Resources& res) {
  const Group group = MakeGroup(res.topology.ring, res.topology.rank);
  const int n = group.size();
  const size_t elem = DataTypeSize(args.type);
  const size_t chunk = ChunkElems(args.options, args.type);
  TreePipeline* trees[2];
  std::vector<TreePipeline> storage;
  storage.reserve(2);
  for (int t = 0; t < 2; ++t) {
    const TreePositions p = DoubleBinaryTreePositions(n, group.index, t);
    TreeLinks links;
    links.parent = p.parent < 0 ? -1 : group.ranks[p.parent];
    for (int c : p.children) links.children.push_back(group.ranks[c]);
    const Block half = BlockOf(args.count, 2, t);
    TreePipeline::Spec spec;
    spec.in = static_cast<const char*>(args.send) + half.offset * elem;
    spec.out = static_cast<char*>(args.recv) + half.offset * elem;
    spec.count = half.count;
    spec.type = args.type;
    spec.op = args.op;
    spec.tag = t;
    spec.chunk_elems = chunk;
    spec.scratch_slot = 4 * t;  // two children, double-buffered
    storage.emplace_back(res, std::move(links), spec);
    trees[t] = &storage.back();
  }
  const size_t lag = 2 * static_cast<size_t>(CeilLog2(n) + 1);
  return RunTreePipelines(res, {trees[0], trees[1]}, lag);
}

}  // namespace kcoll
