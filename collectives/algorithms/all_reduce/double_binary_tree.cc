// Double binary tree AllReduce (NCCL's tree algorithm).
//
// A binomial tree is latency-optimal but its root receives log2(n) full buffers, and half of the ranks (the leaves)
// only ever send: their receive bandwidth is idle during the reduction. NCCL pairs two binary trees so that the
// ranks that are leaves in one are interior in the other, and gives each tree half of the data. Every rank then
// sends and receives about the same amount in each phase, at most two children feed any rank, and the depth stays
// about log2(n).
//
// The trees are the topology's (Topology::double_binary_tree, built once per communicator over the ring order; the
// construction is explained in base/graph.h). In short: tree 0 is the in-order binary tree on
// positions 0..m-1 where position v with lowest set bit b has children v - b/2 and v + b/2, so the odd positions
// are its leaves, and position 0 is a root with the single child at the highest power of two below m; tree 1 is
// its mirror image (v -> m-1-v), whose leaves are the even positions. For odd n the trees cover the first n-1
// positions and the last one hangs as a leaf under both roots. So no rank is interior in both trees.
//
// The buffer is split into two halves, half t reduced up and broadcast down tree t. Both halves are pipelined in
// chunks (tree_pipeline.cc; chunk_bytes, 512 KiB by default) and advanced in lock step: at tick t each tree reduces
// chunk t up and broadcasts chunk t - lag down, with lag = 2 * depth, about the number of ticks a chunk takes to go
// up and come back down. Both trees' results are computed once at their roots and broadcast, so every rank ends with
// the same bits.
#include <algorithm>
#include <vector>

#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/chunking.h"
#include "collectives/algorithms/engines/tree_pipeline.h"

namespace kcoll {

absl::Status DoubleBinaryTreeAllReduce(const CollectiveArgs& args, Resources& res) {
  const size_t elem = DataTypeSize(args.type);
  const size_t chunk = ChunkElems(args.options, args.type);
  std::vector<TreePipeline> trees;
  trees.reserve(2);
  int scratch_slot = 0;
  int depth = 0;
  for (int t = 0; t < 2; ++t) {
    const Tree& tree = res.topology.DoubleTree(t);
    TreeLinks links = LinksOf(tree, res.topology.rank);
    const Block half = BlockOf(args.count, 2, t);
    const TreePipeline::Spec spec{static_cast<const char*>(args.send) + half.offset * elem,
                                  static_cast<char*>(args.recv) + half.offset * elem,
                                  half.count,
                                  args.type,
                                  args.op,
                                  /*tag=*/t,
                                  chunk,
                                  scratch_slot};
    scratch_slot += 2 * static_cast<int>(links.children.size());  // double-buffered per child
    depth = std::max(depth, tree.Depth());
    trees.emplace_back(res, std::move(links), spec);
  }
  return RunTreePipelines(res, {&trees[0], &trees[1]}, 2 * static_cast<size_t>(depth));
}

}  // namespace kcoll
