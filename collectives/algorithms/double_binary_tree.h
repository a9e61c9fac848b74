#ifndef KCOLL_COLLECTIVES_ALGORITHMS_DOUBLE_BINARY_TREE_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_DOUBLE_BINARY_TREE_H_

#include "collectives/algorithms/algorithm.h"

namespace kcoll {

// NCCL's double binary tree AllReduce: half the buffer on each of the topology's two complementary binary trees,
// both pipelined over chunks at once.
absl::Status DoubleBinaryTreeAllReduce(const CollectiveArgs& args, Resources& res);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_DOUBLE_BINARY_TREE_H_
