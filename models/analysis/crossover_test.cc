#include "models/analysis/crossover.h"

#include <cmath>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/test_util.h"

namespace kcoll {
namespace models {
namespace {

struct Machine {
  Topology topology;
  Profile profile;
};

std::vector<Machine> Machines() {
  return {{{1, 64, 1}, Uniform(1e-6, 100e9)},
          {{1, 6, 1}, Uniform(1e-6, 100e9, 1e-11)},
          {{8, 8, 1}, TwoLevel(1e-6, 600e9, 5e-6, 100e9)},
          {{8, 8, 8}, TwoLevel(1e-6, 600e9, 5e-6, 100e9)},
          {{3, 5, 2}, TwoLevel(2e-7, 20e9, 2e-6, 12e9, 1e-10)},
          {{2, 8, 2, 1}, TwoLevel(1e-6, 300e9, 4e-6, 50e9, 1e-12)}};
}

const CostModel& ModelOf(const AlgorithmChooser& chooser, Collective c, Algorithm a) { return *chooser.Model(c, a); }

TEST(CrossoverTest, EveryCrossoverIsWhereTheCostsMeetOrJump) {
  for (const Machine& m : Machines()) {
    const AlgorithmChooser chooser = Unwrap(AlgorithmChooser::Create(m.topology, m.profile));
    for (Collective c : AllCollectives()) {
      const std::vector<Crossover> found = Unwrap(ListCrossovers(c, m.topology, m.profile));
      for (size_t i = 0; i < found.size(); ++i) {
        const Crossover& x = found[i];
        if (i > 0) {
          EXPECT_LE(found[i - 1].bytes, x.bytes);
        }
        const double below = ModelOf(chooser, c, x.below).Seconds(x.bytes);
        const double above = ModelOf(chooser, c, x.above).Seconds(x.bytes);
        EXPECT_DOUBLE_EQ(below, x.below_seconds);
        EXPECT_DOUBLE_EQ(above, x.above_seconds);
        if (x.continuous) {
          EXPECT_NEAR(below, above, 1e-9 * std::max(below, above))
              << CollectiveName(c) << " " << AlgorithmName(x.below) << "/" << AlgorithmName(x.above) << " at "
              << x.bytes;
        } else {
          // A jump: `below` is cheaper just before, `above` from `bytes` on.
          const double before = x.bytes * (1 - 1e-13);
          EXPECT_LE(ModelOf(chooser, c, x.below).Seconds(before), ModelOf(chooser, c, x.above).Seconds(before));
          EXPECT_LT(above, below);
        }
        // Just below, `below` is not the more expensive one.
        const double before = x.bytes * (1 - 1e-7);
        EXPECT_LE(ModelOf(chooser, c, x.below).Seconds(before),
                  ModelOf(chooser, c, x.above).Seconds(before) * (1 + 1e-12))
            << CollectiveName(c) << " " << AlgorithmName(x.below) << "/" << AlgorithmName(x.above) << " at " << x.bytes;
      }
    }
  }
}

TEST(CrossoverTest, AffineCostsCrossExactlyOnce) {
  // Single node, no chunking: both costs are affine in S and cross once.
  const Topology t{1, 16, 1};
  const Profile p = Uniform(3e-6, 40e9);
  const CostModel ring = Unwrap(CostModel::Create(Collective::kAllReduce, Algorithm::kRing, t, p));
  const CostModel rd = Unwrap(CostModel::Create(Collective::kAllReduce, Algorithm::kRecursiveDoubling, t, p));
  // ring: 30 alpha + (30/16) S beta; recursive doubling: 4 alpha + 4 S beta.
  const double exact = 26 * 3e-6 / ((4 - 30.0 / 16) / 40e9);
  const std::vector<Crossover> found = Unwrap(FindCrossovers(ring, rd));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NEAR(found[0].bytes, exact, 1e-9 * exact);
  EXPECT_EQ(found[0].below, Algorithm::kRecursiveDoubling);
  EXPECT_EQ(found[0].above, Algorithm::kRing);
  // The order of the arguments does not matter.
  const std::vector<Crossover> swapped = Unwrap(FindCrossovers(rd, ring));
  ASSERT_EQ(swapped.size(), 1u);
  EXPECT_DOUBLE_EQ(swapped[0].bytes, found[0].bytes);
  EXPECT_EQ(swapped[0].below, Algorithm::kRecursiveDoubling);
}

TEST(CrossoverTest, OutsideTheRangeOrIdenticalMeansNone) {
  const Topology t{1, 16, 1};
  const Profile p = Uniform(3e-6, 40e9);
  const CostModel ring = Unwrap(CostModel::Create(Collective::kAllReduce, Algorithm::kRing, t, p));
  const CostModel rd = Unwrap(CostModel::Create(Collective::kAllReduce, Algorithm::kRecursiveDoubling, t, p));
  CrossoverSearch search;
  search.min_bytes = 1;
  search.max_bytes = 1e3;
  EXPECT_TRUE(Unwrap(FindCrossovers(ring, rd, search)).empty());
  EXPECT_TRUE(Unwrap(FindCrossovers(ring, ring)).empty());
}

TEST(CrossoverTest, ChoiceChangesAgreeWithTheChooser) {
  for (const Machine& m : Machines()) {
    const AlgorithmChooser chooser = Unwrap(AlgorithmChooser::Create(m.topology, m.profile));
    for (Collective c : AllCollectives()) {
      const std::vector<Crossover> changes = Unwrap(ChoiceChanges(chooser, c));
      for (size_t i = 0; i < changes.size(); ++i) {
        const Crossover& x = changes[i];
        EXPECT_NE(x.below, x.above);
        if (i > 0) {
          EXPECT_LT(changes[i - 1].bytes, x.bytes);
          EXPECT_EQ(changes[i - 1].above, x.below);
        }
        if (x.continuous) {
          EXPECT_NEAR(x.below_seconds, x.above_seconds, 1e-9 * std::max(x.below_seconds, x.above_seconds));
        }
        EXPECT_EQ(Unwrap(chooser.Choose(c, x.bytes * (1 - 1e-6))), x.below)
            << CollectiveName(c) << " at " << x.bytes << " on " << TopologyToString(m.topology);
        EXPECT_EQ(Unwrap(chooser.Choose(c, x.bytes * (1 + 1e-6))), x.above)
            << CollectiveName(c) << " at " << x.bytes << " on " << TopologyToString(m.topology);
      }
      // Between changes the choice stays put.
      CrossoverSearch search;
      double lo = search.min_bytes;
      for (size_t i = 0; i <= changes.size(); ++i) {
        const double hi = i < changes.size() ? changes[i].bytes : search.max_bytes;
        const Algorithm expected = i < changes.size() ? changes[i].below
                                   : changes.empty()  ? Unwrap(chooser.Choose(c, lo))
                                                      : changes.back().above;
        for (double s = lo * 1.001; s < hi * 0.999; s *= 1.5) EXPECT_EQ(Unwrap(chooser.Choose(c, s)), expected);
        lo = hi;
      }
    }
  }
}

TEST(CrossoverTest, SingleNodeAllReduceChoice) {
  // One link per rank (a switch port): the bidirectional ring and the double binary tree gain nothing from sending
  // to two peers at once.
  const AlgorithmChooser chooser = Unwrap(AlgorithmChooser::Create({1, 64, 1, 1}, Uniform(1e-6, 100e9)));
  const std::vector<Crossover> changes = Unwrap(ChoiceChanges(chooser, Collective::kAllReduce));
  // recursive_doubling (6 rounds of S) until its bandwidth term catches up with halving_doubling's 12 rounds:
  // 6 alpha + 6 S beta = 12 alpha + 2 (63/64) S beta at S = 6 alpha / ((6 - 126/64) beta).
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].below, Algorithm::kRecursiveDoubling);
  EXPECT_EQ(changes[0].above, Algorithm::kHalvingDoubling);
  const double exact = 6e-6 / ((6 - 126.0 / 64) / 100e9);
  EXPECT_NEAR(changes[0].bytes, exact, 1e-9 * exact);
}

TEST(CrossoverTest, Errors) {
  const Topology t{1, 4, 1};
  const Profile p = Uniform(1e-6, 100e9);
  const CostModel ring = Unwrap(CostModel::Create(Collective::kAllReduce, Algorithm::kRing, t, p));
  const CostModel ag = Unwrap(CostModel::Create(Collective::kAllGather, Algorithm::kRing, t, p));
  EXPECT_THAT(FindCrossovers(ring, ag), IsInvalidArgument("collective 'all_reduce' with collective 'all_gather'"));
  CrossoverSearch s;
  s.min_bytes = 0;
  EXPECT_THAT(FindCrossovers(ring, ring, s), IsInvalidArgument("min_bytes=0"));
  s = CrossoverSearch{};
  s.max_bytes = 0.5;
  EXPECT_THAT(FindCrossovers(ring, ring, s), IsInvalidArgument("max_bytes=0.5"));
  s = CrossoverSearch{};
  s.samples_per_doubling = 0;
  EXPECT_THAT(ListCrossovers(Collective::kAllReduce, t, p, {}, s), IsInvalidArgument("samples_per_doubling=0"));
  EXPECT_THAT(ListCrossovers(Collective::kAllReduce, {1, 0, 1}, p), IsInvalidArgument("ranks_per_node=0"));
  const AlgorithmChooser chooser = Unwrap(AlgorithmChooser::Create(t, p, {}, {Collective::kAllReduce}));
  EXPECT_THAT(ChoiceChanges(chooser, Collective::kBarrier), IsInvalidArgument("'barrier'"));
}

}  // namespace
}  // namespace models
}  // namespace kcoll
