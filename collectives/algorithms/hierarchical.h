#ifndef KCOLL_COLLECTIVES_ALGORITHMS_HIERARCHICAL_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_HIERARCHICAL_H_

#include "collectives/algorithms/algorithm.h"

namespace kcoll {

// 2D AllReduce: ring ReduceScatter inside each node, ring AllReduce across nodes on each shard, ring AllGather
// inside each node. InvalidArgument unless every node has the same number of ranks.
absl::Status HierarchicalAllReduce(const CollectiveArgs& args, Resources& res);

// The same with a binomial tree across nodes instead of the inter-node ring.
absl::Status HierarchicalRingTreeAllReduce(const CollectiveArgs& args, Resources& res);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_HIERARCHICAL_H_
