#include "base/topology.h"

#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/matchers.h"

namespace kcoll {
namespace {

TEST(Topology, NodesAreNumberedByLowestRankAndRingVisitsNodesInTurn) {
  // Ranks 0,2,4 share a machine labelled 7; ranks 1,3 one labelled 3.
  const Topology t = MakeTopology(/*rank=*/3, {7, 3, 7, 3, 7}, /*emulated=*/false);
  EXPECT_EQ(t.nnodes, 2);
  EXPECT_THAT(t.node_of, ElementsAre(0, 1, 0, 1, 0));
  EXPECT_THAT(t.local_rank_of, ElementsAre(0, 0, 1, 1, 2));
  EXPECT_THAT(t.ring, ElementsAre(0, 2, 4, 1, 3));
  EXPECT_EQ(t.uniform_ranks_per_node(), 0);  // 3 and 2: not uniform
  EXPECT_THAT(t.RanksOnNode(1), ElementsAre(1, 3));
  EXPECT_TRUE(t.SameNode(0, 4));
  EXPECT_FALSE(t.SameNode(0, 1));
}

TEST(Topology, EmulatedNodesAreConsecutiveRanks) {
  for (int nranks : {1, 2, 4, 6, 8, 16}) {
    for (int rpn = 1; rpn <= nranks; ++rpn) {
      if (nranks % rpn != 0) continue;
      const Topology t = MakeEmulatedTopology(0, nranks, rpn);
      EXPECT_TRUE(t.emulated);
      EXPECT_EQ(t.nnodes, nranks / rpn);
      EXPECT_EQ(t.uniform_ranks_per_node(), rpn);
      std::set<int> seen(t.ring.begin(), t.ring.end());
      EXPECT_EQ(static_cast<int>(seen.size()), nranks);
      for (int r = 0; r < nranks; ++r) {
        EXPECT_EQ(t.node_of[r], r / rpn);
        EXPECT_EQ(t.local_rank_of[r], r % rpn);
      }
    }
  }
}

}  // namespace
}  // namespace kcoll
