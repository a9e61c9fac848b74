#include "models/algorithm_choice.h"

#include <algorithm>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/test_util.h"

namespace kcoll {
namespace models {
namespace {

TEST(SimplicityRankTest, RanksEveryModelledAlgorithmOnceAndTheRestLast) {
  // Every algorithm has a rank of its own, so a tie between two predicted times always has one winner; `auto`, which
  // is not an algorithm, comes after all of them.
  std::vector<int> ranks;
  for (Algorithm a : AllAlgorithms()) {
    if (a != Algorithm::kAuto) ranks.push_back(SimplicityRank(a));
  }
  std::sort(ranks.begin(), ranks.end());
  EXPECT_EQ(std::adjacent_find(ranks.begin(), ranks.end()), ranks.end()) << "two algorithms share a rank";
  EXPECT_GT(SimplicityRank(Algorithm::kAuto), ranks.back());
}

TEST(SimplicityRankTest, SimplerSchedulesWinTies) {
  EXPECT_LT(SimplicityRank(Algorithm::kLinear), SimplicityRank(Algorithm::kRing));
  EXPECT_LT(SimplicityRank(Algorithm::kRing), SimplicityRank(Algorithm::kTree));
  EXPECT_LT(SimplicityRank(Algorithm::kTree), SimplicityRank(Algorithm::kHalvingDoubling));
  EXPECT_LT(SimplicityRank(Algorithm::kRing), SimplicityRank(Algorithm::kRingPipelined));
  EXPECT_LT(SimplicityRank(Algorithm::kTree), SimplicityRank(Algorithm::kDoubleBinaryTree));
  EXPECT_LT(SimplicityRank(Algorithm::kDoubleBinaryTree), SimplicityRank(Algorithm::kHierarchical));
  EXPECT_LT(SimplicityRank(Algorithm::kHierarchical), SimplicityRank(Algorithm::kHierarchicalRingTree));
}

TEST(AlgorithmChooserTest, PicksTheLeastPredictedTime) {
  const std::vector<Topology> topologies = {{1, 8, 1}, {1, 6, 1}, {4, 8, 1}, {4, 8, 8}, {3, 5, 2}, {16, 1, 1}};
  const std::vector<Profile> profiles = {TwoLevel(1e-6, 600e9, 5e-6, 100e9), TwoLevel(2e-7, 20e9, 2e-6, 12e9, 1e-10)};
  for (const Topology& t : topologies) {
    for (const Profile& p : profiles) {
      const AlgorithmChooser chooser = Unwrap(AlgorithmChooser::Create(t, p));
      for (Collective c : AllCollectives()) {
        for (double s = 1; s < 1e10; s *= 3.7) {
          const std::vector<Candidate> candidates = Unwrap(chooser.Candidates(c, s));
          ASSERT_EQ(candidates.size(), ApplicableAlgorithms(c).size());
          const Algorithm chosen = Unwrap(chooser.Choose(c, s));
          double best = candidates[0].seconds, chosen_seconds = -1;
          for (const Candidate& x : candidates) {
            best = std::min(best, x.seconds);
            if (x.algorithm == chosen) chosen_seconds = x.seconds;
          }
          EXPECT_LE(chosen_seconds, best * (1 + kTieTolerance)) << CollectiveName(c) << " at " << s;
          EXPECT_DOUBLE_EQ(chooser.Model(c, chosen)->Seconds(s), chosen_seconds);
        }
      }
    }
  }
}

TEST(AlgorithmChooserTest, CandidatesComeInSimplicityOrder) {
  const std::vector<Candidate> candidates =
      Unwrap(PredictCandidates(Collective::kAllReduce, 1e6, {2, 4, 1}, TwoLevel(1e-6, 600e9, 5e-6, 100e9)));
  ASSERT_EQ(candidates.size(), ApplicableAlgorithms(Collective::kAllReduce).size());
  for (size_t i = 1; i < candidates.size(); ++i) {
    EXPECT_LT(SimplicityRank(candidates[i - 1].algorithm), SimplicityRank(candidates[i].algorithm));
  }
}

// Across nodes with one NIC, ring, bidirectional_ring and (one channel, one chunk per round) ring_pipelined all cost
// the same for a large AllReduce: the simplest, ring, wins the tie.
TEST(AlgorithmChooserTest, TiesGoToTheSimplerAlgorithm) {
  const Topology t{4, 2, 1};
  const Profile p = TwoLevel(1e-6, 600e9, 5e-6, 10e9);
  CostOptions o;
  o.chunk_bytes = 1e15;
  const AlgorithmChooser chooser = Unwrap(AlgorithmChooser::Create(t, p, o));
  const double s = 1e9;
  const double ring = chooser.Model(Collective::kAllReduce, Algorithm::kRing)->Seconds(s);
  const double bidirectional = chooser.Model(Collective::kAllReduce, Algorithm::kBidirectionalRing)->Seconds(s);
  const double pipelined = chooser.Model(Collective::kAllReduce, Algorithm::kRingPipelined)->Seconds(s);
  EXPECT_DOUBLE_EQ(bidirectional, ring);
  EXPECT_DOUBLE_EQ(pipelined, ring);
  EXPECT_EQ(BestCandidate({{Algorithm::kBidirectionalRing, bidirectional},
                           {Algorithm::kRingPipelined, pipelined},
                           {Algorithm::kRing, ring}})
                .algorithm,
            Algorithm::kRing);
  EXPECT_EQ(BestCandidate({{Algorithm::kHierarchical, 1.0}, {Algorithm::kTree, 1.0 + 1e-12}}).algorithm,
            Algorithm::kTree);
  EXPECT_EQ(BestCandidate({{Algorithm::kTree, 1.0}, {Algorithm::kHierarchical, 0.5}}).algorithm,
            Algorithm::kHierarchical);
}

TEST(AlgorithmChooserTest, SmallAndLargeMessagesOnOneNode) {
  const Profile p = Uniform(1e-6, 100e9);
  // A switch port per rank: sending to two peers at once gains nothing.
  const Topology port{1, 64, 1, 1};
  // Latency-bound: recursive doubling's 6 rounds beat everything else.
  EXPECT_EQ(Unwrap(ChooseAlgorithm(Collective::kAllReduce, 8, port, p)), Algorithm::kRecursiveDoubling);
  // Bandwidth-bound: ring and halving-doubling move the same bytes; halving-doubling has fewer rounds.
  EXPECT_EQ(Unwrap(ChooseAlgorithm(Collective::kAllReduce, 1e10, port, p)), Algorithm::kHalvingDoubling);
  // AllToAll of 64 ranks: Bruck's 6 rounds beat pairwise's 63 while a block (S/64) costs less than a latency to
  // send; once blocks are large, pairwise's single copy of each wins.
  EXPECT_EQ(Unwrap(ChooseAlgorithm(Collective::kAllToAll, 1e6, port, p)), Algorithm::kBruck);
  EXPECT_EQ(Unwrap(ChooseAlgorithm(Collective::kAllToAll, 1e9, port, p)), Algorithm::kPairwise);
  // A link to every peer: the bidirectional ring uses both directions of each ring link and halves the bandwidth
  // term, which wins for large messages when the schedules run in one piece (in slices of 2 x 64 chunks it pays 126
  // latencies per slice, and the pipelined trees win).
  const Topology mesh{1, 64, 1, 0};
  CostOptions one_piece;
  one_piece.chunk_bytes = 1e15;
  EXPECT_EQ(Unwrap(ChooseAlgorithm(Collective::kAllReduce, 8, mesh, p)), Algorithm::kRecursiveDoubling);
  EXPECT_EQ(Unwrap(ChooseAlgorithm(Collective::kAllReduce, 1e10, mesh, p, one_piece)), Algorithm::kBidirectionalRing);
  EXPECT_EQ(Unwrap(ChooseAlgorithm(Collective::kAllReduce, 1e10, mesh, p)), Algorithm::kDoubleBinaryTree);
}

TEST(AlgorithmChooserTest, Errors) {
  const Profile p = Uniform(1e-6, 100e9);
  EXPECT_THAT(AlgorithmChooser::Create({0, 8, 1}, p), IsInvalidArgument("nodes=0"));
  Profile bad = p;
  bad.gamma_s_per_byte = -1;
  EXPECT_THAT(AlgorithmChooser::Create({1, 8, 1}, bad), IsInvalidArgument("gamma_s_per_byte=-1"));
  CostOptions o;
  o.chunk_bytes = -4;
  EXPECT_THAT(ChooseAlgorithm(Collective::kAllReduce, 1, {1, 8, 1}, p, o), IsInvalidArgument("chunk_bytes=-4"));
  const AlgorithmChooser only_allreduce = Unwrap(AlgorithmChooser::Create({1, 8, 1}, p, {}, {Collective::kAllReduce}));
  EXPECT_THAT(only_allreduce.Choose(Collective::kBroadcast, 1),
              IsInvalidArgument("collective 'broadcast' is not one this chooser was built for"));
  EXPECT_THAT(only_allreduce.Candidates(Collective::kAllReduce, -1), IsInvalidArgument("bytes=-1"));
  EXPECT_EQ(only_allreduce.Model(Collective::kAllReduce, Algorithm::kChain), nullptr);
  EXPECT_EQ(only_allreduce.Model(Collective::kBroadcast, Algorithm::kChain), nullptr);
  EXPECT_NE(only_allreduce.Model(Collective::kAllReduce, Algorithm::kRing), nullptr);
}

}  // namespace
}  // namespace models
}  // namespace kcoll
