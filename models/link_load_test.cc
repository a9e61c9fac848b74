#include "models/link_load.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/test_util.h"

namespace kcoll {
namespace models {
namespace {

std::vector<Transfer> Ring(int64_t n, double amount) {
  std::vector<Transfer> t;
  for (int64_t i = 0; i < n; ++i) t.push_back({i, (i + 1) % n, amount});
  return t;
}

TEST(SummarizeRoundTest, RingOnOneNodeIsAllIntra) {
  const RoundLoad load = SummarizeRound({1, 4, 1}, Ring(4, 0.25), /*reduces=*/true);
  EXPECT_TRUE(load.has_intra);
  EXPECT_DOUBLE_EQ(load.intra, 0.25);
  EXPECT_FALSE(load.has_inter);
  EXPECT_DOUBLE_EQ(load.reduce, 0.25);
}

TEST(SummarizeRoundTest, RingAcrossNodesHasOneStreamPerNode) {
  const RoundLoad load = SummarizeRound({3, 4, 1}, Ring(12, 1), /*reduces=*/false);
  EXPECT_TRUE(load.has_intra);
  EXPECT_TRUE(load.has_inter);
  EXPECT_DOUBLE_EQ(load.inter, 1);  // one stream leaves and one enters each node
  EXPECT_DOUBLE_EQ(load.reduce, 0);
}

TEST(SummarizeRoundTest, StreamsLeavingANodeShareItsNics) {
  // Every rank of node 0 sends to its counterpart on node 1 and back: P streams per node.
  for (int nics : {1, 2, 4, 8, 16}) {
    std::vector<Transfer> t;
    for (int64_t l = 0; l < 8; ++l) {
      t.push_back({l, 8 + l, 1});
      t.push_back({8 + l, l, 1});
    }
    const RoundLoad load = SummarizeRound({2, 8, nics}, t, false);
    EXPECT_FALSE(load.has_intra);
    EXPECT_DOUBLE_EQ(load.inter, std::max(1.0, 8.0 / nics)) << nics;
  }
}

TEST(SummarizeRoundTest, CountsTheStreamsThroughTheBusiestNic) {
  // 2 nodes of 2: the ring sends one stream out of and into each node, pairwise 0-2 and 1-3 two each way.
  EXPECT_EQ(SummarizeRound({2, 2, 1}, Ring(4, 1), false).inter_streams, 1);
  const std::vector<Transfer> pairs = {{0, 2, 1}, {2, 0, 1}, {1, 3, 1}, {3, 1, 1}};
  EXPECT_EQ(SummarizeRound({2, 2, 1}, pairs, false).inter_streams, 2);
  EXPECT_EQ(SummarizeRound({2, 2, 2}, pairs, false).inter_streams, 1);  // one per NIC
  // Only one direction: the entering streams count as well as the leaving ones (node 1 receives two).
  EXPECT_EQ(SummarizeRound({2, 2, 1}, {{0, 2, 1}, {1, 3, 1}}, false).inter_streams, 2);
  EXPECT_EQ(SummarizeRound({2, 2, 1}, {{0, 1, 1}}, false).inter_streams, 0);  // nothing crosses
  EXPECT_EQ(StreamsPerNic({2, 4, 2}, 3), 2);
  EXPECT_EQ(StreamsPerNic({2, 4, 2}, 4), 2);
  EXPECT_EQ(StreamsPerNic({2, 4, 1}, 0), 0);
}

TEST(SummarizeRoundTest, TransfersOnOneIntraLinkAddUp) {
  const RoundLoad load = SummarizeRound({1, 2, 1}, {{0, 1, 0.5}, {0, 1, 0.25}, {1, 0, 0.5}}, true);
  EXPECT_DOUBLE_EQ(load.intra, 0.75);
  EXPECT_DOUBLE_EQ(load.reduce, 0.75);  // rank 1 reduces both
}

TEST(SummarizeRoundTest, TwoStreamsBetweenTheSameRanksMayUseTwoNics) {
  const std::vector<Transfer> t = {{0, 1, 1}, {0, 1, 1}};
  EXPECT_DOUBLE_EQ(SummarizeRound({2, 1, 2}, t, false).inter, 1);
  EXPECT_DOUBLE_EQ(SummarizeRound({2, 1, 1}, t, false).inter, 2);
}

TEST(SummarizeRoundTest, SharedIntraLinksOfARank) {
  // Rank 1 sends to 0 and 2 at once (a bidirectional ring's middle rank), 0.5 each.
  const std::vector<Transfer> t = {{1, 0, 0.5}, {1, 2, 0.5}};
  EXPECT_DOUBLE_EQ(SummarizeRound({1, 3, 1, 0}, t, false).intra, 0.5);  // a link per peer
  EXPECT_DOUBLE_EQ(SummarizeRound({1, 3, 1, 1}, t, false).intra, 1.0);  // one port
  EXPECT_DOUBLE_EQ(SummarizeRound({1, 3, 1, 2}, t, false).intra, 0.5);  // two ports
  // Receiving from two peers at once shares the receiving side the same way.
  const std::vector<Transfer> in = {{0, 1, 0.5}, {2, 1, 0.5}};
  EXPECT_DOUBLE_EQ(SummarizeRound({1, 3, 1, 1}, in, false).intra, 1.0);
}

TEST(SummarizeRoundTest, SelfTransfersAreIgnored) {
  const RoundLoad load = SummarizeRound({1, 2, 1}, {{0, 0, 5}, {1, 1, 5}}, true);
  EXPECT_FALSE(load.has_intra);
  EXPECT_FALSE(load.has_inter);
  EXPECT_DOUBLE_EQ(load.reduce, 0);
}

TEST(RoundSecondsTest, SlowestLinkGovernsAndReductionAdds) {
  const Profile p = TwoLevel(1e-6, 100e9, 5e-6, 10e9, 1e-10);
  RoundLoad load;
  load.has_intra = true;
  load.intra = 1;
  load.has_inter = true;
  load.inter = 2;
  load.reduce = 1;
  const double bytes = 1e6;
  EXPECT_DOUBLE_EQ(TransferSeconds(load, bytes, p), 5e-6 + 2e6 / 10e9);
  EXPECT_DOUBLE_EQ(RoundSeconds(load, bytes, p), 5e-6 + 2e6 / 10e9 + 1e-10 * 1e6);
  load.has_inter = false;
  EXPECT_DOUBLE_EQ(TransferSeconds(load, bytes, p), 1e-6 + 1e6 / 100e9);
}

// A round with one stream per node is priced with the link's one-stream curve when the profile has one; a round of two
// with the curve measured at that load.
TEST(RoundSecondsTest, OneStreamRoundsUseTheOneStreamCurve) {
  Profile p = TwoLevel(1e-6, 100e9, 5e-6, 10e9, 0);
  p.inter.curve = MeasuredCurve{{{8, 40e-6}, {1 << 20, 40e-3}}, false};
  const Topology two_by_two{2, 2, 1};
  const RoundLoad ring = SummarizeRound(two_by_two, Ring(4, 1), false);
  const RoundLoad pairs = SummarizeRound(two_by_two, {{0, 2, 1}, {2, 0, 1}, {1, 3, 1}, {3, 1, 1}}, false);
  EXPECT_DOUBLE_EQ(TransferSeconds(ring, 8, p), 40e-6);
  EXPECT_DOUBLE_EQ(TransferSeconds(pairs, 4, p), 40e-6);  // 8 bytes through the link
  p.inter.one_stream_curve = MeasuredCurve{{{8, 25e-6}, {1 << 20, 25e-3}}, false};
  EXPECT_DOUBLE_EQ(TransferSeconds(ring, 8, p), 25e-6);
  EXPECT_DOUBLE_EQ(TransferSeconds(pairs, 4, p), 40e-6);
}

// Profiles measured with two ranks to a core: a round where half the ranks copy and reduce while the others wait
// takes the busiest rank's time at a whole core (half the measured one); a round where every rank does the same
// takes the measured time.
TEST(RoundSecondsTest, RanksSharingCoresLendTheirTimeToBusyNeighbours) {
  Profile p = TwoLevel(1e-6, 10e9, 1e-6, 10e9, 1e-10);
  p.transfers_use_cores = true;
  const Topology node{1, 4, 1, 1};
  const double bytes = 1e6;
  const double busy = 1e-6 + 1e6 / 10e9 + 1e-10 * 1e6;  // copy and reduce one message
  const RoundLoad half = SummarizeRound(node, {{1, 0, 1}, {3, 2, 1}}, /*reduces=*/true);
  ASSERT_EQ(half.receives.size(), 2u);  // ranks 0 and 2 receive, ranks 1 and 3 do not
  EXPECT_EQ(half.receives[0].ranks + half.receives[1].ranks, 4);
  EXPECT_DOUBLE_EQ(RoundSeconds(half, bytes, p), busy);
  p.rank_core_share = 0.5;
  EXPECT_DOUBLE_EQ(RoundSeconds(half, bytes, p), busy / 2);
  p.rank_core_share = 0.75;
  EXPECT_DOUBLE_EQ(RoundSeconds(half, bytes, p), 0.75 * busy);
  p.rank_core_share = 0.5;
  EXPECT_DOUBLE_EQ(RoundSeconds(SummarizeRound(node, Ring(4, 1), true), bytes, p), busy);
  // Without the ranks' cores moving the data the share does not apply.
  p.transfers_use_cores = false;
  EXPECT_DOUBLE_EQ(RoundSeconds(half, bytes, p), busy);
}

TEST(PairwiseCrossingSendersTest, MatchesCountingEveryRank) {
  for (int q : {1, 2, 3, 5}) {
    for (int p : {1, 2, 3, 4, 7}) {
      const Topology t{q, p, 1};
      const int64_t n = t.ranks();
      for (int64_t shift = 1; shift < n; ++shift) {
        for (int64_t node = 0; node < q; ++node) {
          int64_t crossing = 0;
          for (int64_t l = 0; l < p; ++l) {
            const int64_t r = node * p + l;
            if (t.NodeOf((r + shift) % n) != node) ++crossing;
          }
          EXPECT_EQ(PairwiseCrossingSenders(t, shift), crossing) << q << "x" << p << " shift " << shift;
        }
      }
    }
  }
}

}  // namespace
}  // namespace models
}  // namespace kcoll
