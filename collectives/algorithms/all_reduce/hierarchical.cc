// Hierarchical (2D) AllReduce: kHierarchical (ring-ring) and kHierarchicalRingTree (ring-tree).
//
// N nodes of G ranks each; a rank's local rank is its position on its node. Three phases:
//   1. Inside every node, a ring ReduceScatter over the node's G ranks: local rank l ends up with block (l+1) mod G
//      of the node's partial sum (SlicedRing::OwnedBlock).
//   2. Across nodes, the N ranks that hold the same block (the same local rank on every node) AllReduce it in place:
//      around a ring (kHierarchical) or by a binomial tree reduce + broadcast (kHierarchicalRingTree, fewer
//      latency-bound steps: 2 ceil(log2 N) instead of 2(N-1)).
//   3. Inside every node, a ring AllGather of the G reduced blocks.
// Only 1/G of the buffer crosses between nodes per rank, which is the point: the slow inter-node links carry
// 2(N-1)/N * S/G bytes per rank instead of the flat ring's 2(n-1)/n * S.
//
// The buffer is processed in slices of G chunks (chunk_bytes, 512 KiB by default) that go through all three
// phases one after the other, so a slice's blocks are still in cache from one phase to the next. Blocks of a
// slice differ in size by at most one element: any count works.
//
// Nodes come from the topology (MPI's shared-memory split, or emulated with ranks_per_node /
// KCOLL_RANKS_PER_NODE). The schedule needs the same number of ranks on every node (the inter-node group of local
// rank l must exist on every node); otherwise it returns InvalidArgument naming the node sizes rather than quietly
// running something else, so that a forced choice of this algorithm is never misreported. One node, or one rank
// per node, degenerates into a flat ring (or tree) over the whole buffer, and runs as one.
#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/all_reduce/ring.h"
#include "collectives/algorithms/all_reduce/tree.h"
#include "collectives/algorithms/engines/chunking.h"
#include "collectives/algorithms/engines/group.h"
#include "collectives/algorithms/engines/sliced_ring.h"

namespace kcoll {
namespace {

enum class InterNode { kRing, kTree };

constexpr int kIntraReduceScatterTag = 0;
constexpr int kInterTag = 1;
constexpr int kIntraAllGatherTag = 2;

absl::Status RunRingPhase(Resources& res, const Group& group, SlicedRing::Phases phases, const void* in, void* out,
                          size_t count, const CollectiveArgs& args, int tag, int scratch_slot) {
  // One slice (slice_block_elems 0): the caller slices.
  const SlicedRing::Spec spec{phases, in, out, count, args.type, args.op, tag, /*slice_block_elems=*/0, scratch_slot};
  SlicedRing ring(res, group, spec);
  return RunInterleaved(res, {&ring});
}

absl::Status Hierarchical(const CollectiveArgs& args, Resources& res, InterNode inter, Algorithm algorithm) {
  const Topology& topo = res.topology;
  const int per_node = topo.uniform_ranks_per_node();
  if (per_node == 0) {
    std::vector<int> sizes;
    for (int node = 0; node < topo.nnodes; ++node) sizes.push_back(static_cast<int>(topo.RanksOnNode(node).size()));
    return absl::InvalidArgumentError(absl::StrCat(
        AlgorithmName(algorithm), ": nodes have different numbers of ranks (", absl::StrJoin(sizes, ", "),
        "); the hierarchical schedule needs the same number on every node: use ring, tree or halving_doubling"));
  }
  const int me = topo.rank;
  const int local = topo.local_rank_of[me];
  const Group node = MakeGroup(topo.RanksOnNode(topo.node_of[me]), me);
  std::vector<int> same_local;
  for (int n = 0; n < topo.nnodes; ++n) same_local.push_back(topo.RanksOnNode(n)[local]);
  const Group across = MakeGroup(std::move(same_local), me);

  // One node, or one rank per node: the schedule is a single flat ring (or tree), run over the whole buffer at once.
  // Slice by slice, the phases of one rank would copy each slice on its own, a kernel launch and a fence per slice,
  // many times the time of one copy on a GPU (docs/measured/gpu_h200_all_reduce.txt).
  if (topo.nnodes == 1) {
    return RingAllReduceOnGroup(res, node, args.send, args.recv, args.count, args.type, args.op,
                                kIntraReduceScatterTag);
  }
  if (per_node == 1) {
    if (inter == InterNode::kRing) {
      return RingAllReduceOnGroup(res, across, args.send, args.recv, args.count, args.type, args.op, kInterTag);
    }
    return BinomialTreeAllReduceOnGroup(res, across, args.send, args.recv, args.count, args.type, args.op, kInterTag,
                                        ChunkElems(args.options, args.type), /*scratch_slot=*/2);
  }

  const size_t elem = DataTypeSize(args.type);
  const char* in = static_cast<const char*>(args.send);
  char* out = static_cast<char*>(args.recv);
  const size_t slice = ChunkElems(args.options, args.type) * static_cast<size_t>(per_node);
  for (size_t offset = 0; offset < args.count; offset += slice) {
    const size_t len = std::min(slice, args.count - offset);
    KCOLL_RETURN_IF_ERROR(RunRingPhase(res, node, SlicedRing::Phases::kReduceScatter, in + offset * elem,
                                       out + offset * elem, len, args, kIntraReduceScatterTag, /*scratch_slot=*/0));
    const Block owned = BlockOf(len, per_node, SlicedRing::OwnedBlock(node.index, per_node));
    char* shard = out + (offset + owned.offset) * elem;
    if (inter == InterNode::kRing) {
      KCOLL_RETURN_IF_ERROR(RunRingPhase(res, across, SlicedRing::Phases::kAllReduce, shard, shard, owned.count, args,
                                         kInterTag, /*scratch_slot=*/2));
    } else {
      KCOLL_RETURN_IF_ERROR(BinomialTreeAllReduceOnGroup(res, across, shard, shard, owned.count, args.type, args.op,
                                                         kInterTag, /*chunk_elems=*/0, /*scratch_slot=*/2));
    }
    KCOLL_RETURN_IF_ERROR(RunRingPhase(res, node, SlicedRing::Phases::kAllGather, nullptr, out + offset * elem, len,
                                       args, kIntraAllGatherTag, /*scratch_slot=*/0));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status HierarchicalAllReduce(const CollectiveArgs& args, Resources& res) {
  return Hierarchical(args, res, InterNode::kRing, Algorithm::kHierarchical);
}

absl::Status HierarchicalRingTreeAllReduce(const CollectiveArgs& args, Resources& res) {
  return Hierarchical(args, res, InterNode::kTree, Algorithm::kHierarchicalRingTree);
}

}  // namespace kcoll
