#include "models/trees.h"

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

std::vector<int64_t> BinomialTreeParents(int64_t n) {
  std::vector<int64_t> parents(n, -1);
  for (int64_t r = 1; r < n; ++r) parents[r] = r & (r - 1);
  return parents;
}

std::vector<int64_t> BinaryTreeParents(int64_t n) {
  std::vector<int64_t> parents(n, -1);
  for (int64_t r = 1; r < n; ++r) {
    const int64_t bit = r & -r;
    int64_t up = (r ^ bit) | (bit << 1);
    if (up >= n) up = r ^ bit;
    parents[r] = up;
  }
  return parents;
}

DoubleBinaryTree DoubleBinaryTreeParents(int64_t n) {
  DoubleBinaryTree trees;
  trees.first = BinaryTreeParents(n);
  trees.second.assign(n, -1);
  for (int64_t r = 0; r < n; ++r) {
    if (n % 2 == 0) {
      const int64_t up = trees.first[n - 1 - r];
      trees.second[r] = up < 0 ? -1 : n - 1 - up;
    } else {
      const int64_t up = trees.first[(r - 1 + n) % n];
      trees.second[r] = up < 0 ? -1 : (up + 1) % n;
    }
  }
  return trees;
}

}  // namespace models
}  // namespace kcoll
