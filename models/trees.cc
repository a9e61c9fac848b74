#include "models/trees.h"

#include <cstddef>

#include "base/graph.h"

namespace kcoll {
namespace models {

int CeilLog2(int64_t n) {
  int levels = 0;
  while ((int64_t{1} << levels) < n) ++levels;
  return levels;
}

int64_t FloorPowerOfTwo(int64_t n) {
  int64_t p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

namespace {

std::vector<int> Identity(int64_t n) {
  std::vector<int> order(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) order[r] = static_cast<int>(r);
  return order;
}

std::vector<int64_t> Parents(const Tree& tree) { return std::vector<int64_t>(tree.parent.begin(), tree.parent.end()); }

}  // namespace

std::vector<int64_t> BinomialTreeParents(int64_t n) { return Parents(kcoll::BinomialTree(Identity(n))); }

std::vector<int64_t> BinaryTreeParents(int64_t n) { return Parents(kcoll::DoubleBinaryTree(Identity(n))[0]); }

DoubleBinaryTree DoubleBinaryTreeParents(int64_t n) {
  const std::array<Tree, 2> trees = kcoll::DoubleBinaryTree(Identity(n));
  return models::DoubleBinaryTree{Parents(trees[0]), Parents(trees[1])};
}

}  // namespace models
}  // namespace kcoll
