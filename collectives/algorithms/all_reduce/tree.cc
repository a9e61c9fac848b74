// Binomial tree AllReduce: a binomial-tree Reduce to one root followed by a binomial-tree Broadcast from it.
//
// The topology's binomial tree (graph.h: positions are ranks in ring order, any n). Position v's parent is v with
// its lowest set bit cleared; its children are v + 1, v + 2, v + 4, ... below that bit (the root, position 0, has
// v + 2^k for every 2^k < n). Reduction: each rank
// combines its children's partial results, smallest subtree first, with its own contribution and sends the result
// to its parent; after ceil(log2 n) levels the root holds the full reduction. Broadcast: the same tree in reverse,
// the deepest subtree served first. 2 * ceil(log2 n) latency-bound steps instead of the ring's 2(n-1), at the price
// of sending the whole buffer at every level: the choice for small messages.
//
// For large buffers the schedule is pipelined in chunks (tree_pipeline.cc), so the levels work on different chunks
// at once and the reduction and the broadcast overlap (the broadcast of chunk k starts 2 * depth chunks after its
// reduction). Every rank gets the root's bits, so the result is identical on all ranks whatever the reduction
// order.
#include "collectives/algorithms/all_reduce/tree.h"

#include <utility>

#include "collectives/algorithms/engines/chunking.h"
#include "collectives/algorithms/engines/tree_pipeline.h"

namespace kcoll {

namespace {

absl::Status RunTree(Resources& res, TreeLinks links, const void* send, void* recv, size_t count, DataType type,
                     ReduceOp op, int tag, size_t chunk_elems, int scratch_slot, int depth) {
  const TreePipeline::Spec spec{send, recv, count, type, op, tag, chunk_elems, scratch_slot};
  TreePipeline tree(res, std::move(links), spec);
  return RunTreePipelines(res, {&tree}, 2 * static_cast<size_t>(depth));
}

}  // namespace

absl::Status BinomialTreeAllReduceOnGroup(Resources& res, const Group& group, const void* send, void* recv,
                                          size_t count, DataType type, ReduceOp op, int tag, size_t chunk_elems,
                                          int scratch_slot) {
  return RunTree(res, BinomialLinksOnGroup(group), send, recv, count, type, op, tag, chunk_elems, scratch_slot,
                 BinomialDepth(group.size()));
}

absl::Status TreeAllReduce(const CollectiveArgs& args, Resources& res) {
  const Tree& tree = res.topology.binomial_tree;
  return RunTree(res, LinksOf(tree, res.topology.rank), args.send, args.recv, args.count, args.type, args.op,
                 /*tag=*/0, ChunkElems(args.options, args.type), /*scratch_slot=*/0, tree.Depth());
}

}  // namespace kcoll
