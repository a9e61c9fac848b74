// The trees the tree-based algorithms run on, as parent arrays over ranks 0..n-1 (parent -1 marks the root).
#ifndef KCOLL_MODELS_TREES_H_
#define KCOLL_MODELS_TREES_H_

#include <cstdint>
#include <vector>

namespace kcoll {
namespace models {

// Binomial tree rooted at rank 0: the parent of r > 0 is r with its lowest set bit cleared. Reduce runs
// ceil(log2 n) rounds, round i (i = 0, 1, ...) sending from r + 2^i to r for every r that is a multiple of 2^(i+1);
// broadcast runs the same rounds in reverse order and direction.
std::vector<int64_t> BinomialTreeParents(int64_t n);

// Binary tree rooted at rank 0 in which leaves and inner ranks alternate (the odd ranks are leaves): let b be the
// lowest set bit of r > 0; the parent is (r ^ b) | (b << 1), or r ^ b when that is >= n. Rank 0 has one child, every
// other inner rank two. Its depth is ceil(log2 n) for n > 1.
std::vector<int64_t> BinaryTreeParents(int64_t n);

// The two trees of the double binary tree. The first is BinaryTreeParents(n). The second is its mirror image
// (rank r plays the role of n - 1 - r) when n is even and its shift by one (r plays r - 1 mod n) when n is odd, so
// that the leaves of one tree are inner ranks of the other.
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
