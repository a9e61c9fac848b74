// The calibration's pure parts before measuring: sweeps, pair selection, option checks, the spread of passes.
// The measuring itself runs in bench/calibrate_run_test.sh.
#include <vector>

#include "base/topology.h"
#include "calibration/calibrate.h"
#include "calibration/test_results.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/matchers.h"

namespace kcoll {
namespace calibration {
namespace {

TEST(SweepSizes, GeometricThenTheMaximum) {
  EXPECT_THAT(SweepSizes(8, 64 << 20, 4),
              ElementsAre(8, 32, 128, 512, 2048, 8192, 32768, 131072, 524288, 2097152, 8388608, 33554432, 67108864));
  EXPECT_THAT(SweepSizes(4096, 4096, 4), ElementsAre(4096));
  EXPECT_THAT(SweepSizes(1, 10, 3), ElementsAre(1, 3, 9, 10));
  // Fractional factors still give whole, strictly growing sizes.
  EXPECT_THAT(SweepSizes(1, 4, 1.5), ElementsAre(1, 2, 3, 4));
}

TEST(PairsOfClass, FirstPairOrEveryPairOfEachClass) {
  const Topology two_by_two = MakeEmulatedTopology(0, 4, 2);
  EXPECT_THAT(PairsOfClass(two_by_two, LinkClass::kIntra, false), ElementsAre(Pair(0, 1)));
  EXPECT_THAT(PairsOfClass(two_by_two, LinkClass::kInter, false), ElementsAre(Pair(0, 2)));
  EXPECT_THAT(PairsOfClass(two_by_two, LinkClass::kIntra, true), ElementsAre(Pair(0, 1), Pair(2, 3)));
  EXPECT_THAT(PairsOfClass(two_by_two, LinkClass::kInter, true),
              ElementsAre(Pair(0, 2), Pair(0, 3), Pair(1, 2), Pair(1, 3)));
  const Topology one_node = MakeEmulatedTopology(0, 2, 2);
  EXPECT_THAT(PairsOfClass(one_node, LinkClass::kInter, true), IsEmpty());
  const Topology one_rank_per_node = MakeEmulatedTopology(0, 3, 1);
  EXPECT_THAT(PairsOfClass(one_rank_per_node, LinkClass::kIntra, true), IsEmpty());
  EXPECT_THAT(PairsOfClass(one_rank_per_node, LinkClass::kInter, false), ElementsAre(Pair(0, 1)));
}

TEST(ExchangePairs, DisjointPairsCoveringTheRanksOfEachClass) {
  const Topology two_by_two = MakeEmulatedTopology(0, 4, 2);
  EXPECT_THAT(ExchangePairs(two_by_two, LinkClass::kIntra), ElementsAre(Pair(0, 1), Pair(2, 3)));
  EXPECT_THAT(ExchangePairs(two_by_two, LinkClass::kInter), ElementsAre(Pair(0, 2), Pair(1, 3)));
  // An odd node leaves a rank out; one node has no inter-node pair.
  EXPECT_THAT(ExchangePairs(MakeEmulatedTopology(0, 3, 3), LinkClass::kIntra), ElementsAre(Pair(0, 1)));
  EXPECT_THAT(ExchangePairs(MakeEmulatedTopology(0, 2, 2), LinkClass::kInter), IsEmpty());
  // Three nodes of two: ranks 4 and 5 share a node and find no free partner on another.
  EXPECT_THAT(ExchangePairs(MakeEmulatedTopology(0, 6, 2), LinkClass::kInter), ElementsAre(Pair(0, 2), Pair(1, 3)));
}

TEST(StreamsPerNode, TheCrossingPairsThroughTheBusiestNode) {
  const Topology two_by_two = MakeEmulatedTopology(0, 4, 2);
  EXPECT_EQ(StreamsPerNode(two_by_two, ExchangePairs(two_by_two, LinkClass::kInter)), 2);
  // Pairs inside a node cross no link between nodes.
  EXPECT_EQ(StreamsPerNode(two_by_two, ExchangePairs(two_by_two, LinkClass::kIntra)), 1);
  const Topology two_by_one = MakeEmulatedTopology(0, 2, 1);
  EXPECT_EQ(StreamsPerNode(two_by_one, ExchangePairs(two_by_one, LinkClass::kInter)), 1);
  // 3 nodes of 2: pairs 0-2 and 1-3; ranks 4 and 5 share a node and stay out.
  const Topology three_by_two = MakeEmulatedTopology(0, 6, 2);
  EXPECT_EQ(StreamsPerNode(three_by_two, ExchangePairs(three_by_two, LinkClass::kInter)), 2);
  // Nodes 0-1 and 0-2: node 0's link carries both; nodes 0-1 and 1-2: node 1's.
  EXPECT_EQ(StreamsPerNode(three_by_two, {{0, 2}, {1, 4}}), 2);
  EXPECT_EQ(StreamsPerNode(three_by_two, {{0, 2}, {3, 4}}), 2);
  // Nodes 0-1 and 2 inside itself; no pair at all.
  EXPECT_EQ(StreamsPerNode(three_by_two, {{0, 2}, {4, 5}}), 1);
  EXPECT_EQ(StreamsPerNode(three_by_two, {}), 1);
}

TEST(CalibrationOptions, EachBadFieldIsNamed) {
  EXPECT_TRUE(ValidateCalibrationOptions({}).ok());
  CalibrationOptions o;
  o.min_bytes = 0;
  EXPECT_THAT(ValidateCalibrationOptions(o).message(), HasSubstr("min_bytes=0"));
  o = {};
  o.max_bytes = 4;
  EXPECT_THAT(ValidateCalibrationOptions(o).message(), HasSubstr("max_bytes=4"));
  o = {};
  o.step_factor = 1;
  EXPECT_THAT(ValidateCalibrationOptions(o).message(), HasSubstr("step_factor=1"));
  o = {};
  o.min_local_bytes = 2;
  EXPECT_THAT(ValidateCalibrationOptions(o).message(), HasSubstr("min_local_bytes=2"));
  o = {};
  o.min_reps = 0;
  EXPECT_THAT(ValidateCalibrationOptions(o).message(), HasSubstr("min_reps=0"));
  o = {};
  o.max_reps = 5;
  EXPECT_THAT(ValidateCalibrationOptions(o).message(), HasSubstr("max_reps=5"));
  o = {};
  o.percentile = 0;
  EXPECT_THAT(ValidateCalibrationOptions(o).message(), HasSubstr("percentile=0"));
  o.percentile = 101;
  EXPECT_THAT(ValidateCalibrationOptions(o).message(), HasSubstr("percentile=101"));
  o = {};
  o.passes = 0;
  EXPECT_THAT(ValidateCalibrationOptions(o).message(), HasSubstr("passes=0: must be in [1, 100]"));
  o = {};
  o.seconds_per_size = -1;
  EXPECT_THAT(ValidateCalibrationOptions(o).message(), HasSubstr("seconds_per_size=-1"));
}

TEST(SpreadOf, TheLargestSlowestOverFastestAndItsSize) {
  const std::vector<double> sizes = {8, 1024, 1 << 20};
  EXPECT_EQ(SpreadOf({Line(1e-6, 1e-9, sizes)}).bytes, 0);  // one pass: nothing to compare
  Series slow_middle = Line(1e-6, 1e-9, sizes);
  slow_middle.samples[1].seconds *= 2.5;
  Series fast_end = Line(1e-6, 1e-9, sizes);
  fast_end.samples[2].seconds *= 0.8;
  const PassSpread spread = SpreadOf({Line(1e-6, 1e-9, sizes), slow_middle, fast_end});
  EXPECT_DOUBLE_EQ(spread.ratio, 2.5);
  EXPECT_EQ(spread.bytes, 1024);
}

}  // namespace
}  // namespace calibration
}  // namespace kcoll
