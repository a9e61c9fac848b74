// The communication patterns behind the AllReduce algorithms, checked as graphs for every group size up to 100:
// binomial and double binary trees are spanning trees with the promised fan-out and depth, the double binary
// tree's two trees are complementary, and the power-of-two fold covers every rank exactly once.
#include <algorithm>
#include <set>
#include <vector>

#include "collectives/algorithms/double_binary_tree.h"
#include "collectives/algorithms/power_of_two.h"
#include "collectives/algorithms/ring_pipeline.h"
#include "collectives/algorithms/tree_pipeline.h"
#include "gtest/gtest.h"

namespace kcoll {
namespace {

using ShapeFn = TreePositions (*)(int n, int index);

// Checks that parent/children links over positions 0..n-1 form one tree rooted at `root`; returns its depth.
int CheckTree(int n, int root, const std::vector<TreePositions>& nodes, size_t max_children) {
  for (int v = 0; v < n; ++v) {
    EXPECT_EQ(nodes[v].parent < 0, v == root) << "n=" << n << " v=" << v;
    EXPECT_LE(nodes[v].children.size(), max_children) << "n=" << n << " v=" << v;
    for (int c : nodes[v].children) {
      EXPECT_GE(c, 0);
      EXPECT_LT(c, n);
      if (c >= 0 && c < n) {
        EXPECT_EQ(nodes[c].parent, v) << "n=" << n << " child " << c << " of " << v;
      }
    }
    if (nodes[v].parent >= 0 && nodes[v].parent < n) {
      const auto& siblings = nodes[nodes[v].parent].children;
      EXPECT_EQ(std::count(siblings.begin(), siblings.end(), v), 1) << "n=" << n << " v=" << v;
    }
  }
  int depth = 0;
  for (int v = 0; v < n; ++v) {
    int d = 0;
    for (int u = v; u != root && d <= n; u = nodes[u].parent) {
      if (u < 0 || u >= n) break;
      ++d;
    }
    EXPECT_LE(d, n - 1) << "n=" << n << ": position " << v << " does not reach the root";
    depth = std::max(depth, d);
  }
  return depth;
}

TEST(BinomialTreeTest, SpanningTreeOfLogDepth) {
  for (int n = 1; n <= 100; ++n) {
    std::vector<TreePositions> nodes;
    for (int v = 0; v < n; ++v) nodes.push_back(BinomialTreePositions(n, v));
    // The root takes ceil(log2 n) steps, one per child; no chain is longer than that.
    EXPECT_LE(CheckTree(n, 0, nodes, static_cast<size_t>(CeilLog2(n))), CeilLog2(n)) << "n=" << n;
    EXPECT_EQ(nodes[0].children.size(), static_cast<size_t>(CeilLog2(n))) << "n=" << n;
  }
  // Position 6 of 16: parent 4 (lowest bit cleared), child 7 (below its lowest bit).
  EXPECT_EQ(BinomialTreePositions(16, 6).parent, 4);
  EXPECT_EQ(BinomialTreePositions(16, 6).children, std::vector<int>({7}));
  EXPECT_EQ(BinomialTreePositions(13, 8).children, std::vector<int>({9, 10, 12}));
  EXPECT_EQ(BinomialTreePositions(5, 0).children, std::vector<int>({1, 2, 4}));
}

TEST(DoubleBinaryTreeTest, InOrderTreeOfFourRanks) {
  // Labels 0..3: 0 -> 2 -> {3, 1}.
  EXPECT_EQ(InOrderBinaryTree(4, 0).children, std::vector<int>({2}));
  EXPECT_EQ(InOrderBinaryTree(4, 2).parent, 0);
  EXPECT_EQ(InOrderBinaryTree(4, 2).children, std::vector<int>({3, 1}));
  EXPECT_EQ(InOrderBinaryTree(4, 1).parent, 2);
  EXPECT_EQ(InOrderBinaryTree(4, 3).parent, 2);
  // 6 labels: the top is 4, whose right child 6 does not exist, so 5 hangs from 4 directly.
  EXPECT_EQ(InOrderBinaryTree(6, 5).parent, 4);
  EXPECT_EQ(InOrderBinaryTree(6, 4).children, std::vector<int>({5, 2}));
}

TEST(DoubleBinaryTreeTest, TwoComplementaryBinaryTrees) {
  for (int n = 1; n <= 100; ++n) {
    int interior_in_both = 0;
    std::vector<std::vector<TreePositions>> trees(2);
    for (int t = 0; t < 2; ++t) {
      int root = -1;
      for (int v = 0; v < n; ++v) {
        trees[t].push_back(DoubleBinaryTreePositions(n, v, t));
        if (trees[t][v].parent < 0) root = v;
      }
      ASSERT_GE(root, 0) << "n=" << n << " tree " << t;
      EXPECT_LE(trees[t][root].children.size(), 1u) << "the root has one child";
      EXPECT_LE(CheckTree(n, root, trees[t], 2), CeilLog2(n) + 1) << "n=" << n << " tree " << t;
    }
    if (n < 2) continue;
    int leaf_in_both = 0;
    for (int v = 0; v < n; ++v) {
      const bool leaf0 = trees[0][v].children.empty(), leaf1 = trees[1][v].children.empty();
      leaf_in_both += leaf0 && leaf1;
      interior_in_both += !leaf0 && !leaf1;
    }
    // Every rank receives from children in at least one tree; for odd n exactly one rank (the root of tree 1, with
    // its single child) is interior in both.
    EXPECT_EQ(leaf_in_both, 0) << "n=" << n;
    EXPECT_EQ(interior_in_both, n % 2) << "n=" << n;
  }
}

TEST(PowerOfTwoFoldTest, EveryRankParticipatesOrFoldsOnce) {
  for (int n = 1; n <= 100; ++n) {
    const PowerOfTwoFold first = MakePowerOfTwoFold(n, 0);
    EXPECT_EQ(first.p & (first.p - 1), 0) << "n=" << n;
    EXPECT_LE(first.p, n);
    EXPECT_GT(2 * first.p, n);
    std::set<int> participants;
    for (int i = 0; i < n; ++i) {
      const PowerOfTwoFold f = MakePowerOfTwoFold(n, i);
      if (f.folded_out) {
        EXPECT_EQ(MakePowerOfTwoFold(n, f.partner).partner, i);
        EXPECT_FALSE(MakePowerOfTwoFold(n, f.partner).folded_out);
      } else {
        EXPECT_TRUE(participants.insert(f.participant).second);
        EXPECT_EQ(f.PositionOf(f.participant), i) << "n=" << n;
      }
    }
    EXPECT_EQ(static_cast<int>(participants.size()), first.p) << "n=" << n;
    EXPECT_EQ(*participants.begin(), 0);
    EXPECT_EQ(*participants.rbegin(), first.p - 1);
  }
}

TEST(RingPipelineTest, OwnedBlocksCoverTheRing) {
  for (int n = 1; n <= 20; ++n) {
    std::set<int> owned;
    for (int i = 0; i < n; ++i) owned.insert(RingPipeline::OwnedBlock(i, n));
    EXPECT_EQ(static_cast<int>(owned.size()), n);
  }
}

}  // namespace
}  // namespace kcoll
