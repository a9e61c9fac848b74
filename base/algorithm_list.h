// Every algorithm kcoll has, described once. The library's registry (collectives/algorithms/registry.cc), the cost
// model's prices (models/prices/price_table.cc), the names (base/names.h) and the candidates of `auto`
// (choice/auto_choice.h) are all expanded from the two lists below, so a new algorithm is its schedule, its price,
// its rows here and its section in collectives/algorithms/README.md.
//
// KCOLL_ALGORITHMS(X): one row per algorithm, X(Enumerator, name, simplicity, needs):
//   Enumerator   the algorithm is Algorithm::k<Enumerator>
//   name         what KCOLL_ALGO, CallOptions, the benchmark and the logs call it
//   simplicity   when two algorithms are predicted to take the same time, `auto` takes the one with the smaller
//                number (a simpler schedule is easier to reason about and to debug)
//   needs        what a call needs before the algorithm can run (AlgorithmNeeds in base/names.h)
//
// KCOLL_SCHEDULES(X): one row per collective an algorithm serves, X(Collective, Enumerator, schedule, price):
//   schedule     the function of collectives/algorithms/<collective>/ that runs it:
//                absl::Status schedule(const CollectiveArgs& args, Resources& resources)
//   price        the function of models/prices/ that prices it: void price(PriceBuilder& builder), or NotPriced
//                for an algorithm the model leaves out of `auto`'s comparison (direct: zero-copy on registered
//                buffers, taken by its own rule)
// A collective's rows are in the order the registry lists its algorithms; its first row is its fallback default.
#ifndef KCOLL_BASE_ALGORITHM_LIST_H_
#define KCOLL_BASE_ALGORITHM_LIST_H_

#include <cstddef>

// clang-format off
#define KCOLL_ALGORITHMS(X)                                                                                            \
  X(Ring, "ring", 30, kNothing)                                 /* ReduceScatter + AllGather around one ring */        \
  X(RingPipelined, "ring_pipelined", 90, kNothing)              /* channels of rings cut into overlapping chunks */    \
  X(BidirectionalRing, "bidirectional_ring", 80, kNothing)      /* half clockwise, half counter-clockwise */           \
  X(Tree, "tree", 50, kNothing)                                 /* binomial tree: reduce to the root, broadcast */     \
  X(DoubleBinaryTree, "double_binary_tree", 100, kNothing)      /* two complementary trees, half of the data each */   \
  X(HalvingDoubling, "halving_doubling", 70, kNothing)          /* Rabenseifner: recursive halving, then doubling */   \
  X(OrderedHalvingDoubling, "ordered_halving_doubling", 75, kNothing) /* halving-doubling in rank order */             \
  X(RecursiveDoubling, "recursive_doubling", 60, kNothing)      /* log2(n) exchanges of the whole buffer */            \
  X(Hierarchical, "hierarchical", 110, kEqualNodes)             /* rings inside nodes, a ring across them */           \
  X(HierarchicalRingTree, "hierarchical_ring_tree", 120, kEqualNodes) /* rings inside nodes, a tree across them */     \
  X(Chain, "chain", 40, kNothing)                               /* pipelined chain from the root */                    \
  X(Pairwise, "pairwise", 20, kNothing)                         /* pairwise exchange */                                \
  X(Linear, "linear", 10, kNothing)                             /* one message per peer in turn, or all at once */     \
  X(Bruck, "bruck", 65, kNothing)                               /* log2(n) packed messages, blocks hop by set bits */  \
  X(Direct, "direct", 130, kRegisteredBuffers)                  /* zero-copy: ranks read each other's buffers */       \
  X(Inline, "inline", 5, kOneNodeShm)                           /* small buffers inline in shared cache lines */       \
  X(Vendor, "vendor", 140, kVendorMpi)                          /* the MPI library's own collective */

#define KCOLL_SCHEDULES(X)                                                                                             \
  X(AllReduce, Ring, RingAllReduce, PriceRing)                                                                         \
  X(AllReduce, RingPipelined, RingPipelinedAllReduce, PriceRingPipelined)                                              \
  X(AllReduce, BidirectionalRing, BidirectionalRingAllReduce, PriceBidirectionalRing)                                  \
  X(AllReduce, Tree, TreeAllReduce, PriceTree)                                                                         \
  X(AllReduce, DoubleBinaryTree, DoubleBinaryTreeAllReduce, PriceDoubleBinaryTree)                                     \
  X(AllReduce, HalvingDoubling, HalvingDoublingAllReduce, PriceHalvingDoubling)                                        \
  X(AllReduce, RecursiveDoubling, RecursiveDoublingAllReduce, PriceRecursiveDoubling)                                  \
  X(AllReduce, Hierarchical, HierarchicalAllReduce, PriceHierarchical)                                                 \
  X(AllReduce, HierarchicalRingTree, HierarchicalRingTreeAllReduce, PriceHierarchicalRingTree)                         \
  X(AllReduce, Linear, LinearAllReduce, NotPriced)                                                                     \
  X(AllReduce, OrderedHalvingDoubling, OrderedHalvingDoublingAllReduce, NotPriced)                                     \
  X(AllReduce, Direct, DirectAllReduce, NotPriced)                                                                     \
  X(AllReduce, Inline, InlineAllReduce, NotPriced)                                                                     \
  X(AllReduce, Vendor, VendorAllReduce, NotPriced)                                                                     \
  X(ReduceScatter, Ring, RingReduceScatter, PriceRing)                                                                 \
  X(ReduceScatter, HalvingDoubling, HalvingDoublingReduceScatter, PriceHalvingDoubling)                                \
  X(ReduceScatter, Direct, DirectReduceScatter, NotPriced)                                                             \
  X(AllGather, Ring, RingAllGather, PriceRing)                                                                         \
  X(AllGather, RecursiveDoubling, RecursiveDoublingAllGather, PriceRecursiveDoubling)                                  \
  X(AllGather, Direct, DirectAllGather, NotPriced)                                                                     \
  X(Broadcast, Chain, ChainBroadcast, PriceChain)                                                                      \
  X(Broadcast, Tree, TreeBroadcast, PriceTree)                                                                         \
  X(Broadcast, Linear, LinearBroadcast, PriceLinear)                                                                   \
  X(Broadcast, Direct, DirectBroadcast, NotPriced)                                                                     \
  X(Reduce, Chain, ChainReduce, PriceChain)                                                                            \
  X(Reduce, Tree, TreeReduce, PriceTree)                                                                               \
  X(Reduce, Linear, LinearReduce, PriceLinear)                                                                         \
  X(AllToAll, Pairwise, PairwiseAllToAll, PricePairwise)                                                               \
  X(AllToAll, Bruck, BruckAllToAll, PriceBruck)                                                                       \
  X(Gather, Linear, LinearGather, PriceLinear)                                                                         \
  X(Gather, Tree, TreeGather, PriceTree)                                                                               \
  X(Scatter, Linear, LinearScatter, PriceLinear)                                                                       \
  X(Scatter, Tree, TreeScatter, PriceTree)                                                                             \
  X(SendRecv, Pairwise, PairwiseSendRecv, PricePairwise)                                                               \
  X(Barrier, RecursiveDoubling, DisseminationBarrier, PriceRecursiveDoubling)                                          \
  X(Barrier, Tree, TreeBarrier, PriceTree)                                                                             \
  X(Barrier, Linear, LinearBarrier, PriceLinear)                                                                       \
  X(Scan, RecursiveDoubling, RecursiveDoublingScan, PriceRecursiveDoubling)                                            \
  X(Scan, Linear, LinearScan, PriceChain)                                                                              \
  X(Scan, Inline, InlineScan, NotPriced)                                                                               \
  X(ExScan, RecursiveDoubling, RecursiveDoublingExScan, PriceRecursiveDoubling)                                        \
  X(ExScan, Linear, LinearExScan, PriceChain)                                                                          \
  X(ExScan, Inline, InlineExScan, NotPriced)                                                                           \
  X(AllGatherV, Ring, RingAllGatherV, PriceRing)                                                                       \
  X(AllGatherV, Linear, LinearAllGatherV, PriceLinear)                                                                 \
  X(AllToAllV, Pairwise, PairwiseAllToAllV, PricePairwise)                                                             \
  X(AllToAllV, Linear, LinearAllToAllV, PriceLinear)                                                                   \
  X(AllToAllV, Bruck, BruckAllToAllV, PriceBruck)                                                                     \
  X(ReduceScatterV, Ring, RingReduceScatterV, PriceRing)                                                               \
  X(ReduceScatterV, Linear, LinearReduceScatterV, PriceLinear)                                                         \
  X(GatherV, Linear, LinearGatherV, PriceLinear)                                                                       \
  X(ScatterV, Linear, LinearScatterV, PriceLinear)
// clang-format on

namespace kcoll {

// The chunk of the pipelined schedules (ring_pipelined's slices, the trees' chunks, the chain's stages, the
// hierarchical slices) unless a call's tuning says otherwise: the library runs it and the model prices it. A stage's
// receive buffer and the block it is reduced into must stay in the core's cache between the transfer and the
// reduction: 512 KiB is a quarter of a 2 MiB L2, small enough that a stage is received, reduced and forwarded while
// still cached, and large enough that the transport's per-message cost is a small fraction of the stage's transfer.
inline constexpr size_t kDefaultChunkBytes = size_t{512} << 10;

}  // namespace kcoll

#endif  // KCOLL_BASE_ALGORITHM_LIST_H_
