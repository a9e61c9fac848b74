#include "models/cost_model.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/test_util.h"
#include "tests/matchers.h"

namespace kcoll {
namespace models {
namespace {

constexpr double kAlpha = 2e-6;
constexpr double kBw = 50e9;
constexpr double kBeta = 1 / kBw;
constexpr double kGamma = 1e-11;

double Cost(Collective c, Algorithm a, double bytes, const Topology& t, const Profile& p, const CostOptions& o = {}) {
  return Unwrap(PredictSeconds(c, a, bytes, t, p, o));
}

// Expectation helper: relative tolerance for sums of many terms.
#define EXPECT_COST(actual, expected) EXPECT_NEAR((actual), (expected), 1e-12 * std::abs(expected))

// The model prices exactly the rows of base/algorithm_list.h not marked NotPriced, each for its own collective.
TEST(AppliesTest, EveryPricedRowOfTheListAndNothingElse) {
  std::map<Collective, std::vector<Algorithm>> priced;
#define KCOLL_PRICED_ROW(collective, algorithm, schedule, price) \
  if (std::string(#price) != "NotPriced") priced[Collective::k##collective].push_back(Algorithm::k##algorithm);
  KCOLL_SCHEDULES(KCOLL_PRICED_ROW)
#undef KCOLL_PRICED_ROW
  for (Collective c : AllCollectives()) {
    std::vector<Algorithm> expected = priced[c];
    std::sort(expected.begin(), expected.end());  // ApplicableAlgorithms lists them in declaration order
    EXPECT_EQ(ApplicableAlgorithms(c), expected) << CollectiveName(c);
    EXPECT_FALSE(Applies(c, Algorithm::kAuto));
  }
  EXPECT_FALSE(ApplicableAlgorithms(Collective::kAllReduce).empty());
}

TEST(CostModelErrorsTest, NonApplicablePairListsTheAlgorithmsThatApply) {
  const absl::StatusOr<CostModel> m =
      CostModel::Create(Collective::kAllReduce, Algorithm::kChain, {1, 4, 1}, Uniform(kAlpha, kBw));
  EXPECT_THAT(m, IsInvalidArgument("algorithm 'chain' does not apply to collective 'all_reduce'"));
  EXPECT_THAT(m.status().message(), HasSubstr("ring, ring_pipelined, bidirectional_ring"));
  EXPECT_THAT(PredictSeconds(Collective::kAllToAll, Algorithm::kRing, 1, {1, 4, 1}, Uniform(kAlpha, kBw)),
              IsInvalidArgument("it takes: pairwise"));
}

TEST(CostModelErrorsTest, AutoHasNoCost) {
  EXPECT_THAT(CostModel::Create(Collective::kAllReduce, Algorithm::kAuto, {1, 4, 1}, Uniform(kAlpha, kBw)),
              IsInvalidArgument("'auto'"));
}

TEST(CostModelErrorsTest, BadInputsAreNamed) {
  const Profile p = Uniform(kAlpha, kBw);
  EXPECT_THAT(CostModel::Create(Collective::kAllReduce, Algorithm::kRing, {0, 4, 1}, p), IsInvalidArgument("nodes=0"));
  EXPECT_THAT(CostModel::Create(Collective::kAllReduce, Algorithm::kRing, {1, 0, 1}, p),
              IsInvalidArgument("ranks_per_node=0"));
  Profile bad = p;
  bad.inter.alpha_s = -1;
  EXPECT_THAT(CostModel::Create(Collective::kAllReduce, Algorithm::kRing, {1, 4, 1}, bad),
              IsInvalidArgument("inter.alpha_s=-1"));
  CostOptions o;
  o.channels = -1;
  EXPECT_THAT(CostModel::Create(Collective::kAllReduce, Algorithm::kRing, {1, 4, 1}, p, o),
              IsInvalidArgument("channels=-1"));
  o = CostOptions{};
  o.chunk_bytes = 0;
  EXPECT_THAT(CostModel::Create(Collective::kAllReduce, Algorithm::kRing, {1, 4, 1}, p, o),
              IsInvalidArgument("chunk_bytes=0"));
  const CostModel m = Unwrap(CostModel::Create(Collective::kAllReduce, Algorithm::kRing, {1, 4, 1}, p));
  EXPECT_THAT(m.PredictSeconds(-1), IsInvalidArgument("bytes=-1"));
  EXPECT_THAT(m.PredictSeconds(std::nan("")), IsInvalidArgument("bytes=nan"));
}

// ---- Closed forms on one node (all links alike). ----

class SingleNodeTest : public ::testing::Test {
 protected:
  const Profile p_ = Uniform(kAlpha, kBw, kGamma);
  const double s_ = 3e7;
  Topology Node(int n) const { return {1, n, 1}; }
};

TEST_F(SingleNodeTest, Ring) {
  for (int n : {2, 3, 8, 13}) {
    const double f = (n - 1.0) / n;
    EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kRing, s_, Node(n), p_),
                2 * (n - 1) * kAlpha + 2 * f * s_ * kBeta + f * s_ * kGamma);
    EXPECT_COST(Cost(Collective::kReduceScatter, Algorithm::kRing, s_, Node(n), p_),
                (n - 1) * kAlpha + f * s_ * (kBeta + kGamma));
    EXPECT_COST(Cost(Collective::kAllGather, Algorithm::kRing, s_, Node(n), p_), (n - 1) * kAlpha + f * s_ * kBeta);
  }
}

// The schedules in one piece: a chunk larger than any buffer here.
CostOptions Unpipelined() {
  CostOptions o;
  o.chunk_bytes = 1e15;
  return o;
}

// Two rings at once on S/2 each: as many rounds as the ring, half the bytes per round on each direction (the
// AllReduce in one slice here; MeasuredProfileTest prices its slices).
TEST_F(SingleNodeTest, BidirectionalRing) {
  const CostOptions o = Unpipelined();
  for (int n : {3, 4, 9}) {
    const double f = (n - 1.0) / n;
    EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kBidirectionalRing, s_, Node(n), p_, o),
                2 * (n - 1) * kAlpha + f * s_ * kBeta + f * s_ * kGamma);
  }
  // With one link per rank the two halves share it: exactly the ring's cost.
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kBidirectionalRing, s_, {1, 8, 1, 1}, p_, o),
              Cost(Collective::kAllReduce, Algorithm::kRing, s_, {1, 8, 1, 1}, p_));
  // Two ranks: both rings use the same two directed links, so nothing is gained.
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kBidirectionalRing, s_, Node(2), p_, o),
              Cost(Collective::kAllReduce, Algorithm::kRing, s_, Node(2), p_));
  // In slices of 2n chunks every slice pays the rounds' latencies again.
  CostOptions sliced;
  sliced.chunk_bytes = s_ / 2 / 8 / 4;  // four slices on 8 ranks
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kBidirectionalRing, s_, Node(8), p_, sliced),
              4 * 14 * kAlpha + (7.0 / 8) * s_ * (kBeta + kGamma));
}

TEST_F(SingleNodeTest, BinomialTree) {
  // AllReduce: a chunk's way up the slowest leaf-to-root path and back, and the chunks reduced on the way (the
  // children of every rank it passes): n = 2: 1 -> 0; n = 6: 3 -> 2 -> 0 (1 + 3 children); n = 8: 7 -> 6 -> 4 -> 0
  // (1 + 2 + 3); n = 9: 7 -> 6 -> 4 -> 0 (1 + 2 + 4). The root has ceil(log2 n) children.
  const std::map<int, std::pair<int, int>> hops_and_reduced = {{2, {1, 1}}, {6, {2, 4}}, {8, {3, 6}}, {9, {3, 7}}};
  for (const auto& [n, path] : hops_and_reduced) {
    const auto [hops, reduced] = path;
    const int l = static_cast<int>(std::ceil(std::log2(n)));
    // In one chunk.
    EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kTree, s_, Node(n), p_, Unpipelined()),
                2 * hops * (kAlpha + s_ * kBeta) + reduced * s_ * kGamma)
        << n;
    // In chunks of c: the first one's way, then every other one adds a stage, in which the root reduces its l
    // children's chunks while every link moves one chunk each way.
    CostOptions o;
    o.chunk_bytes = 1e6;
    const double c = 1e6, k = s_ / c;
    const double stage = std::max(kAlpha + c * kBeta, l * c * kGamma);
    EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kTree, s_, Node(n), p_, o),
                2 * hops * (kAlpha + c * kBeta) + reduced * c * kGamma + (k - 1) * stage)
        << n;
    EXPECT_COST(Cost(Collective::kBroadcast, Algorithm::kTree, s_, Node(n), p_), l * (kAlpha + s_ * kBeta));
    EXPECT_COST(Cost(Collective::kReduce, Algorithm::kTree, s_, Node(n), p_), l * (kAlpha + s_ * kBeta + s_ * kGamma));
    EXPECT_COST(Cost(Collective::kBarrier, Algorithm::kTree, s_, Node(n), p_), 2 * l * kAlpha);
  }
}

// Gather forwards whole subtrees: 8 ranks move 1, 2, 4 blocks in the three rounds; 6 ranks move 1, 2, 2.
TEST_F(SingleNodeTest, TreeGatherAndScatter) {
  EXPECT_COST(Cost(Collective::kGather, Algorithm::kTree, s_, Node(8), p_), 3 * kAlpha + 7.0 / 8 * s_ * kBeta);
  EXPECT_COST(Cost(Collective::kScatter, Algorithm::kTree, s_, Node(8), p_), 3 * kAlpha + 7.0 / 8 * s_ * kBeta);
  EXPECT_COST(Cost(Collective::kGather, Algorithm::kTree, s_, Node(6), p_), 3 * kAlpha + 5.0 / 6 * s_ * kBeta);
}

TEST_F(SingleNodeTest, HalvingDoublingAllReduce) {
  // Power of two: log2 n halving and doubling rounds moving (n-1)/n of S each way.
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kHalvingDoubling, s_, Node(8), p_),
              6 * kAlpha + 2 * 7.0 / 8 * s_ * kBeta + 7.0 / 8 * s_ * kGamma);
  // n = 6 = 4 + 2: fold-in (S, reduced), halving S/2, S/4, doubling S/4, S/2, fold-out (S).
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kHalvingDoubling, s_, Node(6), p_),
              6 * kAlpha + 3.5 * s_ * kBeta + 1.75 * s_ * kGamma);
}

TEST_F(SingleNodeTest, RecursiveDoublingAllReduce) {
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kRecursiveDoubling, s_, Node(8), p_),
              3 * (kAlpha + s_ * kBeta + s_ * kGamma));
  // n = 6: fold-in, two full exchanges, fold-out (not reduced).
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kRecursiveDoubling, s_, Node(6), p_),
              4 * kAlpha + 4 * s_ * kBeta + 3 * s_ * kGamma);
}

TEST_F(SingleNodeTest, HalvingReduceScatter) {
  EXPECT_COST(Cost(Collective::kReduceScatter, Algorithm::kHalvingDoubling, s_, Node(8), p_),
              3 * kAlpha + 7.0 / 8 * s_ * (kBeta + kGamma));
  // n = 6: survivors carry blocks 2, 2, 1, 1 (in sixths). Fold-in S; distance-2 round: at most 2+2 = 4/6;
  // distance-1 round: at most 2/6; fold-out: the folded rank's own block, 1/6 (not reduced).
  EXPECT_COST(Cost(Collective::kReduceScatter, Algorithm::kHalvingDoubling, s_, Node(6), p_),
              4 * kAlpha + 2 * s_ * (kBeta + kGamma) + s_ / 6 * kBeta);
}

TEST_F(SingleNodeTest, DoublingAllGather) {
  EXPECT_COST(Cost(Collective::kAllGather, Algorithm::kRecursiveDoubling, s_, Node(8), p_),
              3 * kAlpha + 7.0 / 8 * s_ * kBeta);
  // n = 6: fold-in 1/6, rounds of 2/6 and 4/6, fold-out 6/6 (the whole result, as the library sends it).
  EXPECT_COST(Cost(Collective::kAllGather, Algorithm::kRecursiveDoubling, s_, Node(6), p_),
              4 * kAlpha + 13.0 / 6 * s_ * kBeta);
  // Dissemination barrier: ceil(log2 n) rounds.
  EXPECT_COST(Cost(Collective::kBarrier, Algorithm::kRecursiveDoubling, 0, Node(6), p_), 3 * kAlpha);
}

TEST_F(SingleNodeTest, Chain) {
  CostOptions o;
  o.chunk_bytes = 100;
  // 4 ranks = 3 hops; 350 bytes = chunks of 100, 100, 100, 50.
  EXPECT_COST(Cost(Collective::kBroadcast, Algorithm::kChain, 350, Node(4), p_, o),
              3 * (kAlpha + 100 * kBeta) + 2 * (kAlpha + 100 * kBeta) + (kAlpha + 50 * kBeta));
  // One chunk: three hops of the whole message.
  EXPECT_COST(Cost(Collective::kBroadcast, Algorithm::kChain, 80, Node(4), p_, o), 3 * (kAlpha + 80 * kBeta));
  // Reduce adds a reduction stage after every hop.
  const Profile slow_reduce = Uniform(kAlpha, kBw, 1e-6);
  const double first = 3 * (kAlpha + 100 * kBeta + 100 * 1e-6);
  EXPECT_COST(Cost(Collective::kReduce, Algorithm::kChain, 350, Node(4), slow_reduce, o),
              first + 2 * 100 * 1e-6 + 50 * 1e-6);
}

TEST_F(SingleNodeTest, Linear) {
  EXPECT_COST(Cost(Collective::kBroadcast, Algorithm::kLinear, s_, Node(4), p_), 3 * (kAlpha + s_ * kBeta));
  EXPECT_COST(Cost(Collective::kReduce, Algorithm::kLinear, s_, Node(4), p_), 3 * (kAlpha + s_ * kBeta + s_ * kGamma));
  EXPECT_COST(Cost(Collective::kGather, Algorithm::kLinear, s_, Node(4), p_), 3 * (kAlpha + s_ / 4 * kBeta));
  EXPECT_COST(Cost(Collective::kScatter, Algorithm::kLinear, s_, Node(4), p_), 3 * (kAlpha + s_ / 4 * kBeta));
  EXPECT_COST(Cost(Collective::kBarrier, Algorithm::kLinear, s_, Node(4), p_), 6 * kAlpha);
}

TEST_F(SingleNodeTest, Pairwise) {
  EXPECT_COST(Cost(Collective::kAllToAll, Algorithm::kPairwise, s_, Node(5), p_), 4 * (kAlpha + s_ / 5 * kBeta));
  EXPECT_COST(Cost(Collective::kSendRecv, Algorithm::kPairwise, s_, Node(5), p_), kAlpha + s_ * kBeta);
}

// n = 4: tree A is 0 <- 2 <- {1, 3}, tree B (mirror) is 3 <- 1 <- {0, 2}. Both trees use the pair 1-2, in opposite
// roles, so the directed link 1 -> 2 carries A's upward and B's downward chunk: load 2 in a full pipeline. One
// chunk per half (S/2 <= chunk_bytes): up two hops and down two hops; going up the chunks of A and B use different
// directed links (A: 1->2, 3->2, 2->0; B: 0->1, 2->1, 1->3), and so coming down, so each hop moves S/2 alone.
TEST_F(SingleNodeTest, DoubleBinaryTree) {
  const Profile p = Uniform(kAlpha, kBw);
  const double s = 1e5;
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kDoubleBinaryTree, s, Node(4), p), 4 * kAlpha + 2 * s * kBeta);
  // Many chunks: time ~ (k - 1 + fill) stages; the bandwidth term approaches 2 * (S/2) * beta (the shared link).
  CostOptions o;
  o.chunk_bytes = 1000;
  const double big = 1e9;
  const double t = Cost(Collective::kAllReduce, Algorithm::kDoubleBinaryTree, big, Node(4), p, o);
  const double chunks = big / 2 / 1000;
  EXPECT_COST(t, 4 * (kAlpha + 1000 * kBeta) + (chunks - 1) * (kAlpha + 2000 * kBeta));
}

TEST_F(SingleNodeTest, NothingToDo) {
  for (Collective c : AllCollectives()) {
    for (Algorithm a : ApplicableAlgorithms(c)) {
      EXPECT_EQ(Cost(c, a, 1e6, Node(1), p_), 0) << CollectiveName(c) << " " << AlgorithmName(a);
      if (c != Collective::kBarrier) {
        EXPECT_EQ(Cost(c, a, 0, Node(8), p_), 0) << CollectiveName(c) << " " << AlgorithmName(a);
      }
    }
  }
}

// ---- Several nodes. ----

// A flat ring's every round is paced by its slowest hop: with a slow network that is the inter-node one.
TEST(MultiNodeTest, FlatRingIsPacedByTheSlowestLink) {
  const Topology t{2, 4, 1};
  const double s = 8e6, m = s / 8;
  const Profile slow_net = TwoLevel(1e-6, 200e9, 5e-6, 10e9, kGamma);
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kRing, s, t, slow_net), 14 * (5e-6 + m / 10e9) + 7 * m * kGamma);
  // The other way round (a fast network, slow intra-node links) the intra-node hops pace it.
  const Profile slow_node = TwoLevel(1e-6, 1e9, 5e-6, 10e9);
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kRing, s, t, slow_node), 14 * (1e-6 + m / 1e9));
  // One rank per node: every hop crosses nodes.
  EXPECT_COST(Cost(Collective::kAllGather, Algorithm::kRing, s, {4, 1, 1}, slow_net), 3 * (5e-6 + s / 4 / 10e9));
}

// Where the profile measured the inter-node link with one stream alone, the rounds that send one stream per node pay
// that curve (here a flat 3 us), and rounds of several streams the curve of the load as before.
TEST(MultiNodeTest, RoundsOfOneStreamPerNodeUseTheOneStreamCurve) {
  const Topology t{2, 4, 1};
  const double s = 8e3, m = s / 8;
  const Profile p = TwoLevel(1e-6, 200e9, 5e-6, 10e9, kGamma);
  Profile one = p;
  one.inter.one_stream_curve = MeasuredCurve{{{1, 3e-6}, {1e12, 3e-6}}, false};
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kRing, s, t, p), 14 * (5e-6 + m / 10e9) + 7 * m * kGamma);
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kRing, s, t, one), 14 * 3e-6 + 7 * m * kGamma);
  // Recursive doubling's crossing round sends four streams through each node's link: priced as before.
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kRecursiveDoubling, s, t, one),
              Cost(Collective::kAllReduce, Algorithm::kRecursiveDoubling, s, t, p));
  // Hierarchical: two streams per node with two local ranks, one with one.
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kHierarchical, s, {4, 2, 1}, one),
              Cost(Collective::kAllReduce, Algorithm::kHierarchical, s, {4, 2, 1}, p));
  EXPECT_LT(Cost(Collective::kAllReduce, Algorithm::kHierarchical, s, {4, 1, 1}, one),
            Cost(Collective::kAllReduce, Algorithm::kHierarchical, s, {4, 1, 1}, p));
  // The chain's every hop is one stream.
  EXPECT_LT(Cost(Collective::kBroadcast, Algorithm::kChain, s, t, one),
            Cost(Collective::kBroadcast, Algorithm::kChain, s, t, p));
  // One pipelined tree's first chunk crosses alone; the double binary tree's two trees both cross each node's link
  // with their first chunks at once, on 2 nodes of 2.
  EXPECT_LT(Cost(Collective::kAllReduce, Algorithm::kTree, s, {2, 2, 1}, one),
            Cost(Collective::kAllReduce, Algorithm::kTree, s, {2, 2, 1}, p));
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kDoubleBinaryTree, s, {2, 2, 1}, one),
              Cost(Collective::kAllReduce, Algorithm::kDoubleBinaryTree, s, {2, 2, 1}, p));
}

TEST(MultiNodeTest, HierarchicalDegeneratesToARing) {
  const Profile p = TwoLevel(1e-6, 200e9, 5e-6, 10e9, kGamma);
  const double s = 1e7;
  auto Cost = [](Collective c, Algorithm a, double bytes, const Topology& t, const Profile& p) {
    return ::kcoll::models::Cost(c, a, bytes, t, p, Unpipelined());
  };
  // One node: only the intra-node phases, which make a ring AllReduce.
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kHierarchical, s, {1, 6, 1}, p),
              Cost(Collective::kAllReduce, Algorithm::kRing, s, {1, 6, 1}, p));
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kHierarchicalRingTree, s, {1, 6, 1}, p),
              Cost(Collective::kAllReduce, Algorithm::kRing, s, {1, 6, 1}, p));
  // One rank per node: only the inter-node ring.
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kHierarchical, s, {5, 1, 1}, p),
              Cost(Collective::kAllReduce, Algorithm::kRing, s, {5, 1, 1}, p));
  // Ring-tree with one rank per node: the binomial tree across nodes, level by level (ceil(log2 5) = 3 rounds up,
  // reducing, and 3 down).
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kHierarchicalRingTree, s, {5, 1, 1}, p),
              6 * (5e-6 + s / 10e9) + 3 * s * kGamma);
}

TEST(MultiNodeTest, HierarchicalPhases) {
  const Topology t{4, 2, 1};  // P = 2, Q = 4
  const Profile p = TwoLevel(1e-6, 200e9, 5e-6, 10e9);
  const double s = 1e7;
  const double intra = 1e-6 + s / 2 / 200e9;       // one intra round of S/P
  const double inter = 5e-6 + 2 * (s / 8) / 10e9;  // two streams (one per local rank) share the NIC
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kHierarchical, s, t, p, Unpipelined()), 2 * intra + 6 * inter);
  // Ring-tree: two binomial rounds up and two down on S/P, again two streams per node.
  const double tree = 5e-6 + 2 * (s / 2) / 10e9;
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kHierarchicalRingTree, s, t, p, Unpipelined()),
              2 * intra + 4 * tree);
  // In slices of P chunks, one after the other: the same rounds on each slice.
  CostOptions o;
  o.chunk_bytes = s / 2 / 5;  // five slices
  const double slice = s / 5;
  const double slice_intra = 1e-6 + slice / 2 / 200e9;
  const double slice_inter = 5e-6 + 2 * (slice / 8) / 10e9;
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kHierarchical, s, t, p, o),
              5 * (2 * slice_intra + 6 * slice_inter));
}

TEST(MultiNodeTest, NicsPerNodeRelieveConcurrentStreams) {
  const Profile p = TwoLevel(1e-6, 200e9, 5e-6, 10e9);
  const double s = 1e8;
  const double shared = Cost(Collective::kAllReduce, Algorithm::kHierarchical, s, {4, 8, 1}, p);
  const double rails = Cost(Collective::kAllReduce, Algorithm::kHierarchical, s, {4, 8, 8}, p);
  EXPECT_LT(rails, shared);
  // A flat ring has one stream per node: extra NICs do not help it.
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kRing, s, {4, 8, 8}, p),
              Cost(Collective::kAllReduce, Algorithm::kRing, s, {4, 8, 1}, p));
}

TEST(RingPipelinedTest, OneChannelOneChunkIsTheRing) {
  const Profile p = TwoLevel(1e-6, 200e9, 5e-6, 10e9, kGamma);
  CostOptions o;
  o.channels = 1;
  o.chunk_bytes = 1e9;
  for (const Topology& t : {Topology{1, 8, 1}, Topology{3, 4, 2}}) {
    for (double s : {1.0, 1e3, 1e6, 1e9}) {
      EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kRingPipelined, s, t, p, o),
                  Cost(Collective::kAllReduce, Algorithm::kRing, s, t, p));
    }
  }
}

TEST(RingPipelinedTest, ChannelsSpreadOverNics) {
  const Profile p = TwoLevel(1e-6, 200e9, 5e-6, 10e9);
  const Topology t{2, 4, 4};
  CostOptions o;  // channels = 0: one per NIC
  const double s = 8e8, m = s / 8;
  o.chunk_bytes = s / 32;  // four whole slices of 8 chunks: all four channels run, one chunk each per round
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kRingPipelined, s, t, p, o),
              14 * std::max(1e-6 + m / 200e9, 5e-6 + m / 4 / 10e9));
}

TEST(RingPipelinedTest, ChunksHideTheReduction) {
  const Profile p = Uniform(1e-6, 10e9, 1e-10);  // reducing a byte costs as much as moving it
  CostOptions o;
  o.channels = 1;
  o.chunk_bytes = 1e6;
  const double s = 8e8;
  const double ring = Cost(Collective::kAllReduce, Algorithm::kRing, s, {1, 8, 1}, p);
  const double piped = Cost(Collective::kAllReduce, Algorithm::kRingPipelined, s, {1, 8, 1}, p, o);
  EXPECT_LT(piped, 0.8 * ring);
  // Exactly: 7 reducing rounds of 100 chunks, where transfer and reduction overlap except for one chunk's
  // reduction, then 7 copying rounds of 100 chunks.
  const double tx = 1e-6 + 1e6 / 10e9, tr = 1e-10 * 1e6;
  EXPECT_COST(piped, 7 * (tx + tr + 99 * std::max(tx, tr)) + 7 * 100 * tx);
}

// On shared memory a CPU rank copies each chunk itself, so it cannot reduce at the same time: the stages add up.
TEST(RingPipelinedTest, WithoutOverlapTheStagesAddUp) {
  Profile p = Uniform(1e-6, 10e9, 1e-10);
  p.transfers_use_cores = true;
  CostOptions o;
  o.channels = 1;
  o.chunk_bytes = 1e6;
  const double piped = Cost(Collective::kAllReduce, Algorithm::kRingPipelined, 8e8, {1, 8, 1}, p, o);
  const double tx = 1e-6 + 1e6 / 10e9, tr = 1e-10 * 1e6;
  EXPECT_COST(piped, 7 * 100 * (tx + tr) + 7 * 100 * tx);
}

// A profile with measured curves: 1 us per message up to 4 KiB, 10 GB/s up to 1 MiB, 2.5 GB/s from 16 MiB; the
// reduction at 20 GB/s in cache and 5 GB/s out of it.
Profile Measured() {
  Profile p = Uniform(1e-6, 10e9, 1.0 / 20e9);
  p.intra.curve = MeasuredCurve{{{4096, 1e-6}, {1 << 20, (1 << 20) / 10e9}, {1 << 24, (1 << 24) / 2.5e9}}, false};
  p.inter = p.intra;
  p.gamma_curve = MeasuredCurve{{{4096, 4096 / 20e9}, {1 << 20, (1 << 20) / 20e9}, {1 << 24, (1 << 24) / 5e9}}, true};
  return p;
}

// Two ranks: one reducing exchange of S/2 and one copying exchange of S/2, each message and the reduction priced by
// the curves at the collective's working set S.
TEST(MeasuredProfileTest, RingIsItsStepsOnTheCurves) {
  const Profile p = Measured();
  for (double s : {1e3, 1e5, 3e6, 5e7}) {
    const double expected = 2 * p.intra.curve.SecondsIn(s / 2, s) + p.gamma_curve.SecondsIn(s / 2, s);
    EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kRing, s, {1, 2, 1}, p), expected) << s;
  }
  // Out of cache a half-buffer message pays the 64 MiB rate even though 32 MiB alone was measured faster.
  EXPECT_COST(p.intra.Seconds(1 << 25, 1 << 26), (1 << 25) / 2.5e9);
  // Without curves the same profile is the alpha-beta line.
  Profile line = Measured();
  line.intra.curve = line.inter.curve = line.gamma_curve = MeasuredCurve();
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kRing, 1e6, {1, 2, 1}, line),
              2 * (1e-6 + 5e5 / 10e9) + 5e5 / 20e9);
}

// When the ranks' cores copy, the two messages a bidirectional-ring rank receives per round are copied one after the
// other; through a shared port (a switch) their bytes add up and their latencies overlap.
TEST(MeasuredProfileTest, CoresCopyConcurrentMessagesInTurn) {
  Profile p = Uniform(1e-6, 10e9);
  const Topology t{1, 4, 1, 1};
  const double s = 4e6;
  p.transfers_use_cores = true;
  const CostOptions o = Unpipelined();
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kBidirectionalRing, s, t, p, o), 6 * 2 * (1e-6 + s / 8 / 10e9));
  p.transfers_use_cores = false;
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kBidirectionalRing, s, t, p, o), 6 * (1e-6 + 2 * s / 8 / 10e9));
  // 2 nodes x 2 ranks: each rank gets one message from inside its node and one from the other node per round, and
  // copies both.
  const Profile two = TwoLevel(1e-6, 10e9, 2e-6, 5e9);
  Profile two_cores = two;
  two_cores.transfers_use_cores = true;
  const Topology nodes{2, 2, 2, 1};
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kBidirectionalRing, s, nodes, two_cores, o),
              6 * ((1e-6 + s / 8 / 10e9) + (2e-6 + s / 8 / 5e9)));
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kBidirectionalRing, s, nodes, two, o),
              6 * std::max(1e-6 + s / 8 / 10e9, 2e-6 + s / 8 / 5e9));
  // One message per round: the ring is the same either way.
  const double ring = Cost(Collective::kAllReduce, Algorithm::kRing, s, t, p);
  p.transfers_use_cores = true;
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kRing, s, t, p), ring);
}

// A full stage of a double binary tree on 2 nodes x 2 ranks moves a chunk up and another down every edge of both
// trees (A: 0 <- 2 <- {1, 3}, B: 3 <- 1 <- {0, 2}). Rank 2 receives A's chunks from 1 and 3 going up, A's from 0 and
// B's from 1 coming down: one intra-node and three inter-node chunks (rank 1 likewise), and reduces two. When the
// ranks' cores copy, a rank copies them in turn, then reduces; through separate ports the busiest port paces the
// stage (node 1 sends four chunks to node 0 through its two NICs) and the reduction overlaps it.
TEST(MeasuredProfileTest, PipelinedTreeStagesCopyEveryReceivedChunk) {
  Profile p = TwoLevel(1e-6, 10e9, 2e-6, 5e9, 1e-10);
  const Topology nodes{2, 2, 2, 1};
  CostOptions o;
  o.chunk_bytes = 1e6;
  // Two more chunks per tree (four in all) add two full stages.
  auto stage = [&]() {
    const double base = 2e8;
    return (Cost(Collective::kAllReduce, Algorithm::kDoubleBinaryTree, base + 4e6, nodes, p, o) -
            Cost(Collective::kAllReduce, Algorithm::kDoubleBinaryTree, base, nodes, p, o)) /
           2;
  };
  const double intra = 1e-6 + 1e6 / 10e9, inter = 2e-6 + 1e6 / 5e9, reduce = 2 * 1e6 * 1e-10;
  p.transfers_use_cores = true;
  EXPECT_COST(stage(), intra + 3 * inter + reduce);
  p.transfers_use_cores = false;
  EXPECT_COST(stage(), std::max(2e-6 + 2e6 / 5e9, reduce));
  // Measured with two ranks to a core: ranks 0 and 3 copy one chunk of each class and reduce one, ranks 1 and 2 as
  // above. The stage is the total work over the cores (the mean rank's) unless the busiest rank alone on a core takes
  // longer.
  p.transfers_use_cores = true;
  p.rank_core_share = 0.5;
  const double mean = ((intra + inter + reduce / 2) + (intra + 3 * inter + reduce)) / 2;
  EXPECT_COST(stage(), mean);
  p.rank_core_share = 0.9;
  EXPECT_COST(stage(), 0.9 * (intra + 3 * inter + reduce));
}

// The sliced AllReduces (hierarchical, ring_pipelined, bidirectional_ring) read each slice from memory in their
// ReduceScatter rounds and find it in cache in their AllGather rounds: those are priced at the slice's working set.
// On 2 ranks hierarchical and one-channel ring_pipelined run the same schedule and cost the same.
TEST(MeasuredProfileTest, SlicedAllReducesFindTheirAllGatherInCache) {
  Profile p = Measured();
  p.transfers_use_cores = true;  // CPU ranks: a rank copies and reduces in turn
  const Topology two{1, 2, 1, 1};
  const double mib = 1 << 20, s = 8 * mib;
  CostOptions o;
  o.channels = 1;
  o.chunk_bytes = mib;
  auto move = [&](double bytes, double working_set) { return p.intra.curve.SecondsIn(bytes, working_set); };
  auto reduce = [&](double bytes, double working_set) { return p.gamma_curve.SecondsIn(bytes, working_set); };
  // Four slices of 2 MiB: exchange and reduce 1 MiB out of the 8 MiB buffer, then forward 1 MiB of the slice.
  const double sliced_ring = 4 * (move(mib, s) + reduce(mib, s) + move(mib, 2 * mib));
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kHierarchical, s, two, p, o), sliced_ring);
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kRingPipelined, s, two, p, o), sliced_ring);
  // Two directions of 1 MiB blocks in slices of 4 MiB: each rank receives two blocks per round and reduces both.
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kBidirectionalRing, s, two, p, o),
              2 * (2 * move(mib, s) + reduce(2 * mib, s) + 2 * move(mib, 4 * mib)));
  // The unsliced ring forwards blocks of the whole buffer: its AllGather is priced out of cache.
  EXPECT_GT(Cost(Collective::kAllReduce, Algorithm::kRing, s, two, p, o), sliced_ring);
  // One slice: the buffer is the slice, and ring_pipelined is the ring.
  EXPECT_COST(Cost(Collective::kAllReduce, Algorithm::kRingPipelined, 2 * mib, two, p, o),
              Cost(Collective::kAllReduce, Algorithm::kRing, 2 * mib, two, p, o));
}

// On one node whose cores copy, the linear ReduceScatterV runs slices of one 64 KiB piece per block: each slice's
// copies come from the buffer in memory, and the owner's fold of n-1 pieces finds the fold so far in cache (priced at
// the slice's working set). Elsewhere it stays one round of whole blocks.
TEST(MeasuredProfileTest, LinearReduceScatterVFoldsPiecesInCache) {
  Profile p = Measured();
  p.transfers_use_cores = true;
  const Topology four{1, 4, 1, 1};
  const double piece = 64 * 1024, slice = 4 * piece, s = 1 << 24;
  const double per_slice = p.intra.curve.SecondsIn(3 * piece, s) + p.gamma_curve.SecondsIn(3 * piece, slice);
  EXPECT_COST(Cost(Collective::kReduceScatterV, Algorithm::kLinear, s, four, p), s / slice * per_slice);
  // Out of cache, the ring reduces into memory at every step and costs more.
  EXPECT_GT(Cost(Collective::kReduceScatterV, Algorithm::kRing, s, four, p),
            1.2 * Cost(Collective::kReduceScatterV, Algorithm::kLinear, s, four, p));
  // One slice or less: the buffer is the slice.
  EXPECT_COST(Cost(Collective::kReduceScatterV, Algorithm::kLinear, slice, four, p),
              p.intra.curve.SecondsIn(3 * piece, slice) + p.gamma_curve.SecondsIn(3 * piece, slice));
  // Where a NIC or copy engine moves the data, or across nodes, the blocks travel whole: one round, reduced at the
  // buffer's working set.
  p.transfers_use_cores = false;
  EXPECT_COST(Cost(Collective::kReduceScatterV, Algorithm::kLinear, s, four, p),
              p.intra.curve.SecondsIn(3 * s / 4, s) + p.gamma_curve.SecondsIn(3 * s / 4, s));
}

// ---- Properties. ----

TEST(CostPropertiesTest, EveryCostGrowsWithSize) {
  // A measured curve interpolates through log and exp, which are monotone only up to their last bit.
  constexpr double kUlps = 1 - 1e-14;
  CostOptions o;
  o.chunk_bytes = 4096;  // many chunk steps in the range below
  const std::vector<Topology> topologies = {{1, 1, 1}, {1, 8, 1}, {1, 6, 1},    {3, 5, 2},
                                            {4, 4, 4}, {5, 1, 1}, {2, 3, 1, 1}, {2, 4, 2, 2}};
  const std::vector<Profile> profiles = {TwoLevel(1e-6, 200e9, 5e-6, 10e9, 0), TwoLevel(1e-6, 200e9, 5e-6, 10e9, 1e-9),
                                         TwoLevel(5e-6, 1e9, 1e-6, 100e9, 1e-11), Measured()};
  for (const Topology& t : topologies) {
    for (const Profile& p : profiles) {
      for (Collective c : AllCollectives()) {
        for (Algorithm a : ApplicableAlgorithms(c)) {
          const CostModel m = Unwrap(CostModel::Create(c, a, t, p, o));
          // Except where ring_pipelined starts another channel: rings running at once can finish a larger call
          // sooner, in the library as in the model.
          auto same_channels = [&](double x, double y) {
            return a != Algorithm::kRingPipelined || m.RingChannels(x) == m.RingChannels(y);
          };
          double previous = m.Seconds(0), previous_s = 0;
          for (double s = 1; s < 1e9; s *= 1.07) {
            const double now = m.Seconds(s);
            if (same_channels(previous_s, s)) {
              EXPECT_GE(now, previous * kUlps)
                  << CollectiveName(c) << "/" << AlgorithmName(a) << " on " << TopologyToString(t) << " at " << s;
            }
            previous = now;
            previous_s = s;
          }
          // Around every chunk multiple of the first few hundred: below, on, above.
          double last = 0, last_x = 0;
          for (double j = 1; j < 300; ++j) {
            for (double x : {j * 4096 - 1, j * 4096, j * 4096 + 1}) {
              const double now = m.Seconds(x);
              if (same_channels(last_x, x)) {
                EXPECT_GE(now, last * kUlps) << CollectiveName(c) << "/" << AlgorithmName(a) << " at " << x;
              }
              last = now;
              last_x = x;
            }
          }
        }
      }
    }
  }
}

TEST(CostPropertiesTest, BarrierIgnoresBytes) {
  const Profile p = TwoLevel(1e-6, 200e9, 5e-6, 10e9);
  for (Algorithm a : ApplicableAlgorithms(Collective::kBarrier)) {
    EXPECT_EQ(Cost(Collective::kBarrier, a, 0, {3, 4, 1}, p), Cost(Collective::kBarrier, a, 1e9, {3, 4, 1}, p));
    EXPECT_GT(Cost(Collective::kBarrier, a, 0, {3, 4, 1}, p), 0);
  }
}

TEST(CostPropertiesTest, ModelRemembersWhatItIs) {
  const CostModel m = Unwrap(
      CostModel::Create(Collective::kReduceScatter, Algorithm::kHalvingDoubling, {2, 2, 1}, Uniform(kAlpha, kBw)));
  EXPECT_EQ(m.collective(), Collective::kReduceScatter);
  EXPECT_EQ(m.algorithm(), Algorithm::kHalvingDoubling);
  EXPECT_EQ(m.topology().ranks(), 4);
}

}  // namespace
}  // namespace models
}  // namespace kcoll
