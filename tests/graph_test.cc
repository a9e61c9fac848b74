// The rings and trees of base/graph.h on 1..32 ranks and several node layouts: every ring visits
// every rank once, channels cross node boundaries at different ranks, every tree spans the ranks, and in the double
// binary tree no rank is interior in both trees.
#include "base/graph.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/topology.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/matchers.h"

namespace kcoll {
namespace {

std::vector<int> Identity(int n) {
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}

// Node layouts to test for n ranks: one node, emulated nodes of every divisor, and two irregular ones (ranks dealt
// round-robin to 3 nodes; one big node plus single-rank nodes).
std::vector<std::vector<int>> Layouts(int n) {
  std::vector<std::vector<int>> layouts;
  for (int rpn = 1; rpn <= n; ++rpn) {
    if (n % rpn != 0) continue;
    std::vector<int> labels(n);
    for (int r = 0; r < n; ++r) labels[r] = r / rpn;
    layouts.push_back(labels);
  }
  std::vector<int> round_robin(n), lopsided(n);
  for (int r = 0; r < n; ++r) {
    round_robin[r] = r % 3;
    lopsided[r] = r < n / 2 ? 0 : r;
  }
  layouts.push_back(round_robin);
  layouts.push_back(lopsided);
  return layouts;
}

// Non-fatal failures describing how `tree` fails to be a spanning tree of 0..n-1 rooted at `root`.
void ExpectSpanningTree(const Tree& tree, int n, int root, const std::string& what) {
  ASSERT_EQ(tree.size(), n) << what;
  ASSERT_EQ(static_cast<int>(tree.children.size()), n) << what;
  EXPECT_EQ(tree.root, root) << what;
  EXPECT_EQ(tree.Parent(root), -1) << what;
  int edges = 0;
  for (int r = 0; r < n; ++r) {
    for (int c : tree.Children(r)) {
      ASSERT_TRUE(c >= 0 && c < n) << what << ": child " << c << " of " << r;
      EXPECT_EQ(tree.Parent(c), r) << what << ": child " << c << " of " << r << " names another parent";
      ++edges;
    }
    if (r != root) {
      const int p = tree.Parent(r);
      ASSERT_TRUE(p >= 0 && p < n) << what << ": parent of " << r << " is " << p;
      const auto& siblings = tree.Children(p);
      EXPECT_EQ(std::count(siblings.begin(), siblings.end(), r), 1) << what << ": " << r << " not a child of " << p;
    }
  }
  EXPECT_EQ(edges, n - 1) << what;
  // Every rank reaches the root in fewer than n steps (no cycles).
  for (int r = 0; r < n; ++r) {
    int at = r, steps = 0;
    while (at != root && steps < n) {
      at = tree.Parent(at);
      ++steps;
      ASSERT_GE(at, 0) << what << ": rank " << r << " does not reach the root";
    }
    EXPECT_EQ(at, root) << what << ": rank " << r << " does not reach the root";
  }
}

int CeilLog2(int n) {
  int k = 0;
  while ((1 << k) < n) ++k;
  return k;
}

TEST(ChannelRing, EveryChannelVisitsEveryRankOnceWithNodesContiguous) {
  for (int n = 1; n <= 32; ++n) {
    for (const std::vector<int>& labels : Layouts(n)) {
      const Topology t = MakeTopology(0, labels, /*emulated=*/false, Topology::kMaxChannels);
      ASSERT_EQ(t.nchannels(), Topology::kMaxChannels);
      for (int c = 0; c < Topology::kMaxChannels; ++c) {
        const std::vector<int>& ring = t.ChannelRing(c);
        const std::string what = absl::StrCat("n=", n, " nodes {", absl::StrJoin(labels, ","), "} channel ", c,
                                              " ring {", absl::StrJoin(ring, ","), "}");
        std::vector<int> sorted = ring;
        std::sort(sorted.begin(), sorted.end());
        EXPECT_EQ(sorted, Identity(n)) << what;
        // Each node's ranks form one contiguous segment, and the segments follow node order: the ring crosses
        // node boundaries exactly nnodes times (0 on one node).
        int crossings = 0;
        for (int i = 0; i < n; ++i) {
          const int from = ring[i], to = ring[(i + 1) % n];
          if (t.node_of[from] != t.node_of[to]) {
            ++crossings;
            EXPECT_EQ(t.node_of[to], (t.node_of[from] + 1) % t.nnodes) << what;
          }
        }
        EXPECT_EQ(crossings, t.nnodes > 1 ? t.nnodes : 0) << what;
      }
    }
  }
}

TEST(ChannelRing, ChannelZeroIsTheFlatRing) {
  // Round-robin placement: nodes {0,3,6}, {1,4,7}, {2,5}.
  EXPECT_THAT(ChannelRing({0, 1, 2, 0, 1, 2, 0, 1}, 0), ElementsAre(0, 3, 6, 1, 4, 7, 2, 5));
  EXPECT_THAT(ChannelRing({0, 0, 1, 1}, 0), ElementsAre(0, 1, 2, 3));
  EXPECT_THAT(ChannelRing({0, 0, 1, 1}, 1), ElementsAre(1, 0, 3, 2));
  EXPECT_THAT(ChannelRing({0, 0, 0, 1, 1, 1}, 2), ElementsAre(2, 0, 1, 5, 3, 4));
}

TEST(ChannelRing, ChannelsSpreadNodeCrossingsOverEveryLocalRank) {
  // With L ranks per node and L channels, every rank is the one leaving its node in exactly one channel.
  for (int n = 2; n <= 32; ++n) {
    for (int rpn = 2; rpn < n; ++rpn) {
      if (n % rpn != 0) continue;
      const Topology t = MakeEmulatedTopology(0, n, rpn, rpn);
      std::vector<int> times_leaving(n, 0);
      for (int c = 0; c < rpn; ++c) {
        const std::vector<int>& ring = t.ChannelRing(c);
        for (int i = 0; i < n; ++i) {
          if (!t.SameNode(ring[i], ring[(i + 1) % n])) ++times_leaving[ring[i]];
        }
      }
      EXPECT_EQ(times_leaving, std::vector<int>(n, 1)) << "n=" << n << " ranks_per_node=" << rpn;
    }
  }
}

TEST(ChannelRing, ChannelsBeyondTheCountReuseTheRings) {
  const Topology t = MakeEmulatedTopology(0, 6, 3, /*nchannels=*/2);
  EXPECT_EQ(t.nchannels(), 2);
  EXPECT_EQ(t.ChannelRing(2), t.ChannelRing(0));
  EXPECT_EQ(t.ChannelRing(5), t.ChannelRing(1));
  EXPECT_EQ(t.ring, t.ChannelRing(0));
}

TEST(BinomialTree, SpansTheRanksWithLogDepth) {
  for (int n = 1; n <= 32; ++n) {
    for (int root = 0; root < n; ++root) {
      std::vector<int> order(n);
      for (int i = 0; i < n; ++i) order[i] = (root + i) % n;
      const Tree tree = BinomialTree(order);
      const std::string what = absl::StrCat("binomial n=", n, " root=", root);
      ExpectSpanningTree(tree, n, root, what);
      // Position v sits popcount(v) edges below the root.
      int depth = 0;
      for (int v = 0; v < n; ++v) depth = std::max(depth, __builtin_popcount(v));
      EXPECT_EQ(tree.Depth(), depth) << what;
      EXPECT_EQ(static_cast<int>(tree.Children(root).size()), CeilLog2(n)) << what;
    }
  }
}

TEST(BinomialTree, KnownShapes) {
  const Tree t8 = BinomialTree(Identity(8));
  EXPECT_THAT(t8.Children(0), ElementsAre(1, 2, 4));  // nearest (smallest subtree) first
  EXPECT_THAT(t8.Children(4), ElementsAre(5, 6));
  EXPECT_THAT(t8.Children(6), ElementsAre(7));
  EXPECT_THAT(t8.Children(7), IsEmpty());
  EXPECT_THAT(t8.parent, ElementsAre(-1, 0, 0, 2, 0, 4, 4, 6));
  // Over another order: positions map to the ranks in `order`.
  const Tree t = BinomialTree({2, 3, 0, 1});
  EXPECT_THAT(t.parent, ElementsAre(2, 0, -1, 2));
}

TEST(BinomialTree, TopologyRootsTheTreeAnywhere) {
  for (int n = 1; n <= 12; ++n) {
    const Topology t = MakeTopology(0, Layouts(n).back(), /*emulated=*/false);
    ExpectSpanningTree(t.binomial_tree, n, 0, absl::StrCat("topology binomial n=", n));
    for (int root = 0; root < n; ++root) {
      ExpectSpanningTree(t.BinomialTreeRootedAt(root), n, root, absl::StrCat("n=", n, " rooted at ", root));
    }
  }
}

TEST(DoubleBinaryTree, TwoSpanningTreesWithDisjointInteriors) {
  for (int n = 1; n <= 32; ++n) {
    for (const std::vector<int>& labels : Layouts(n)) {
      const Topology t = MakeTopology(0, labels, /*emulated=*/false);
      const std::string what = absl::StrCat("double binary tree n=", n, " nodes {", absl::StrJoin(labels, ","), "}");
      for (int i = 0; i < 2; ++i) {
        const Tree& tree = t.DoubleTree(i);
        ExpectSpanningTree(tree, n, tree.root, absl::StrCat(what, " tree ", i));
        for (int r = 0; r < n; ++r) {
          EXPECT_LE(tree.Children(r).size(), 2u) << what << " tree " << i << " rank " << r;
        }
        EXPECT_LE(tree.Depth(), CeilLog2(n) + 1) << what << " tree " << i;
      }
      EXPECT_EQ(t.DoubleTree(0).root, t.ring[0]) << what;
      for (int r = 0; r < n; ++r) {
        EXPECT_FALSE(!t.DoubleTree(0).IsLeaf(r) && !t.DoubleTree(1).IsLeaf(r))
            << what << ": rank " << r << " is interior in both trees";
      }
    }
  }
}

TEST(DoubleBinaryTree, KnownShapes) {
  // Even: tree 1 mirrors tree 0.
  const auto t4 = DoubleBinaryTree(Identity(4));
  EXPECT_THAT(t4[0].parent, ElementsAre(-1, 2, 0, 2));
  EXPECT_THAT(t4[1].parent, ElementsAre(1, 3, 1, -1));
  // Odd: the last rank hangs under both roots.
  const auto t3 = DoubleBinaryTree(Identity(3));
  EXPECT_THAT(t3[0].parent, ElementsAre(-1, 0, 0));
  EXPECT_THAT(t3[1].parent, ElementsAre(1, -1, 1));
  // 14 ranks: the in-order tree of NCCL's comment (0 -> 8 -> {4, 12}, 12 -> {10, 13}).
  const auto t14 = DoubleBinaryTree(Identity(14));
  EXPECT_THAT(t14[0].Children(0), ElementsAre(8));
  EXPECT_THAT(t14[0].Children(8), ElementsAre(4, 12));
  EXPECT_THAT(t14[0].Children(12), ElementsAre(10, 13));
  EXPECT_THAT(t14[1].Children(13), ElementsAre(5));
}

}  // namespace
}  // namespace kcoll
