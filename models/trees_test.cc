#include "models/trees.h"

#include <algorithm>
#include <vector>

#include "gtest/gtest.h"

namespace kcoll {
namespace models {
namespace {

// Depth of every rank, or -1 if some rank's parent chain does not end at a single root.
int Depth(const std::vector<int64_t>& parents) {
  int roots = 0, depth = 0;
  for (size_t r = 0; r < parents.size(); ++r) {
    if (parents[r] < 0) ++roots;
    int d = 0;
    for (int64_t v = static_cast<int64_t>(r); parents[v] >= 0; v = parents[v]) {
      if (++d > static_cast<int>(parents.size())) return -1;  // a cycle
    }
    depth = std::max(depth, d);
  }
  return roots == 1 ? depth : -1;
}

std::vector<int> Children(const std::vector<int64_t>& parents) {
  std::vector<int> children(parents.size(), 0);
  for (int64_t up : parents) {
    if (up >= 0) ++children[up];
  }
  return children;
}

TEST(TreesTest, Logs) {
  EXPECT_EQ(CeilLog2(1), 0);
  EXPECT_EQ(CeilLog2(2), 1);
  EXPECT_EQ(CeilLog2(5), 3);
  EXPECT_EQ(CeilLog2(8), 3);
  EXPECT_EQ(CeilLog2(9), 4);
  EXPECT_EQ(FloorPowerOfTwo(1), 1);
  EXPECT_EQ(FloorPowerOfTwo(6), 4);
  EXPECT_EQ(FloorPowerOfTwo(8), 8);
}

TEST(TreesTest, BinomialTreeHasLogDepth) {
  for (int64_t n = 1; n <= 70; ++n) {
    const std::vector<int64_t> parents = BinomialTreeParents(n);
    EXPECT_EQ(parents[0], -1);
    // Rank r sits as deep as it has set bits; reduce and broadcast still take ceil(log2 n) rounds.
    EXPECT_EQ(Depth(parents), CeilLog2(FloorPowerOfTwo(n))) << n;
  }
  EXPECT_EQ(BinomialTreeParents(8), (std::vector<int64_t>{-1, 0, 0, 2, 0, 4, 4, 6}));
}

TEST(TreesTest, BinaryTreeShape) {
  // n = 8: 0 <- 4 <- {2, 6}; 2 <- {1, 3}; 6 <- {5, 7}.
  EXPECT_EQ(BinaryTreeParents(8), (std::vector<int64_t>{-1, 2, 4, 2, 0, 6, 4, 6}));
  // n = 7: the tree of 6 ranks (0 <- 4 <- {2, 5}; 2 <- {1, 3}) and the last rank under the root.
  EXPECT_EQ(BinaryTreeParents(7), (std::vector<int64_t>{-1, 2, 4, 2, 0, 4, 0}));
  for (int64_t n = 1; n <= 70; ++n) {
    const std::vector<int64_t> parents = BinaryTreeParents(n);
    const int64_t m = n % 2 == 0 ? n : n - 1;  // the in-order part; an odd n's last rank sits under the root
    EXPECT_EQ(Depth(parents), n == 1 ? 0 : std::max(CeilLog2(m), 1)) << n;
    const std::vector<int> children = Children(parents);
    for (int64_t r = 0; r < n; ++r) {
      EXPECT_LE(children[r], r == 0 ? (m < n && n > 1 ? 2 : 1) : 2) << n << " " << r;
      if (r % 2 == 1) {
        EXPECT_EQ(children[r], 0) << "odd ranks are leaves: " << n << " " << r;
      }
    }
  }
}

TEST(TreesTest, DoubleBinaryTreesAreComplementary) {
  for (int64_t n = 2; n <= 70; ++n) {
    const DoubleBinaryTree trees = DoubleBinaryTreeParents(n);
    EXPECT_GE(Depth(trees.second), 0) << n;
    EXPECT_LE(Depth(trees.second), CeilLog2(n)) << n;
    const std::vector<int> a = Children(trees.first);
    const std::vector<int> b = Children(trees.second);
    int inner_in_both = 0;
    for (int64_t r = 0; r < n; ++r) {
      if (a[r] > 0 && b[r] > 0) ++inner_in_both;
    }
    // Every rank is a leaf in at least one tree (an odd n's last rank in both).
    EXPECT_EQ(inner_in_both, 0) << n;
  }
}

}  // namespace
}  // namespace models
}  // namespace kcoll
