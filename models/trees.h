// The trees the tree-based algorithms run on, as parent arrays over ranks 0..n-1 (parent -1 marks the root).
#ifndef KCOLL_MODELS_TREES_H_
#define KCOLL_MODELS_TREES_H_

#include <cstdint>
#include <vector>

namespace kcoll {
namespace models {

// The trees are the ones the algorithms run on (base/graph.h), over the identity ring order, so the
// model prices exactly what the code constructs.

// Binomial tree rooted at rank 0: the parent of r > 0 is r with its lowest set bit cleared. Reduce runs
// ceil(log2 n) rounds, round i (i = 0, 1, ...) sending from r + 2^i to r for every r that is a multiple of 2^(i+1);
// broadcast runs the same rounds in reverse order and direction.
std::vector<int64_t> BinomialTreeParents(int64_t n);

// The first tree of the double binary tree: an in-order binary tree over the first m = n (even n) or n - 1 (odd n)
// ranks, rooted at rank 0 with one child, whose odd ranks are leaves; for odd n the last rank hangs under the root.
std::vector<int64_t> BinaryTreeParents(int64_t n);

// The two trees of the double binary tree: the first, and its mirror image over the first m ranks (rank r plays
// m - 1 - r), so that the leaves of one are inner ranks of the other; for odd n the last rank is a leaf of both.
struct DoubleBinaryTree {
  std::vector<int64_t> first;
  std::vector<int64_t> second;
};
DoubleBinaryTree DoubleBinaryTreeParents(int64_t n);

// ceil(log2 n) for n >= 1 (0 for n == 1).
int CeilLog2(int64_t n);

// Largest power of two <= n, for n >= 1.
int64_t FloorPowerOfTwo(int64_t n);

}  // namespace models
}  // namespace kcoll

#endif  // KCOLL_MODELS_TREES_H_
