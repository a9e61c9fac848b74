#ifndef KCOLL_COLLECTIVES_ALGORITHMS_DOUBLE_BINARY_TREE_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_DOUBLE_BINARY_TREE_H_

#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/tree_pipeline.h"

namespace kcoll {

// The in-order binary tree over labels 0..n-1 (see double_binary_tree.cc): label 0 is the root and has one
// child; every odd label is a leaf.
TreePositions InOrderBinaryTree(int n, int label);

// Position `index`'s place in tree `tree` (0 or 1) of the double binary tree over `n` positions, in positions.
// Tree 0 is InOrderBinaryTree on labels = positions; tree 1 relabels the positions (mirrored when n is even,
// shifted by one when n is odd) so that the leaves of one tree are the interior ranks of the other.
TreePositions DoubleBinaryTreePositions(int n, int index, int tree);

// NCCL's double binary tree AllReduce: half the buffer on each tree, both pipelined over chunks at once.
absl::Status DoubleBinaryTreeAllReduce(const CollectiveArgs& args, Resources& res);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_DOUBLE_BINARY_TREE_H_
