#include "models/analysis/predict_report.h"

#include <cmath>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/cost_model.h"
#include "models/test_util.h"
#include "tests/matchers.h"

namespace kcoll {
namespace models {
namespace {

using nlohmann::json;

PredictRequest ReferenceMachine() {
  PredictRequest r;
  r.topology = {8, 8, 1};
  r.profile = TwoLevel(1e-6, 600e9, 5e-6, 100e9);
  return r;
}

const json& Entry(const json& report, const std::string& algorithm) {
  for (const json& a : report["algorithms"]) {
    if (a["algorithm"] == algorithm) return a;
  }
  static const json none;
  return none;
}

TEST(SizeReportTest, ReferenceMachine) {
  const json r = Unwrap(SizeReport(ReferenceMachine(), 1e9));
  EXPECT_EQ(r["collective"], "all_reduce");
  EXPECT_EQ(r["topology"]["ranks"], 64);
  // I = 1 NIC x 100 GB/s: min(100 * 63 * 8 / (64 * 7), 600 * 63 / 56) = min(112.5, 675) GB/s.
  EXPECT_DOUBLE_EQ(r["ideal_busbw"].get<double>(), 112.5e9);
  EXPECT_EQ(r["ideal_limited_by"], "inter-node");
  const json& ring = Entry(r, "ring");
  EXPECT_NEAR(ring["seconds"].get<double>(), 20.3175e-3, 1e-12);
  EXPECT_NEAR(ring["algbw"].get<double>(), 1e9 / 20.3175e-3, 1e-3);
  EXPECT_NEAR(ring["busbw"].get<double>(), 2 * 63.0 / 64 * 1e9 / 20.3175e-3, 1e-3);
  EXPECT_NEAR(ring["efficiency"].get<double>(), 2 * 63.0 / 64 * 1e9 / 20.3175e-3 / 112.5e9, 1e-12);
  EXPECT_EQ(r["algorithms"].size(), ApplicableAlgorithms(Collective::kAllReduce).size());  // every priced one
  // The chosen algorithm has the least time.
  double best = 1e300;
  for (const json& a : r["algorithms"]) best = std::min(best, a["seconds"].get<double>());
  EXPECT_LE(Entry(r, r["chosen"].get<std::string>())["seconds"].get<double>(), best * (1 + 1e-9));
  EXPECT_FALSE(r["crossovers"].empty());
  for (const json& c : r["crossovers"]) EXPECT_TRUE(c.contains("bytes") && c.contains("below") && c.contains("above"));
  const std::string text = FormatSizeReport(r);
  EXPECT_THAT(text, HasSubstr("all_reduce on 8 nodes x 8 ranks"));
  EXPECT_THAT(text, HasSubstr("ideal busbw: 112.50 GB/s (inter-node bound)"));
  EXPECT_THAT(text, HasSubstr("chosen: " + r["chosen"].get<std::string>()));
  EXPECT_THAT(text, HasSubstr("20.32 ms"));
}

TEST(SizeReportTest, OneRankPerNodeIsBoundByTheInterNodeLink) {
  PredictRequest r = ReferenceMachine();
  r.topology = {4, 1, 1};
  const json report = Unwrap(SizeReport(r, 1e6));
  // N = Q = 4: nothing moves within a node, the ideal is I = 100 GB/s.
  EXPECT_DOUBLE_EQ(report["ideal_busbw"].get<double>(), 100e9);
  EXPECT_EQ(report["ideal_limited_by"], "inter-node");
  for (const json& a : report["algorithms"]) EXPECT_FALSE(a["efficiency"].is_null());
}

TEST(SizeReportTest, ZeroBytesHasNoBandwidth) {
  const json r = Unwrap(SizeReport(ReferenceMachine(), 0));
  for (const json& a : r["algorithms"]) {
    EXPECT_EQ(a["seconds"].get<double>(), 0);
    EXPECT_TRUE(a["busbw"].is_null());
  }
  EXPECT_THAT(FormatSizeReport(r), HasSubstr(" - "));
}

TEST(SweepReportTest, RowsCoverTheRange) {
  const json r = Unwrap(SweepReport(ReferenceMachine(), 8, 1e9, 8));
  // 8, 64, ..., 8^9 = 134217728, then 1e9 itself.
  ASSERT_EQ(r["rows"].size(), 10u);
  EXPECT_EQ(r["rows"][0]["bytes"], 8);
  EXPECT_EQ(r["rows"][9]["bytes"], 1e9);
  for (const json& row : r["rows"]) {
    EXPECT_EQ(row["algorithm_seconds"].size(), ApplicableAlgorithms(Collective::kAllReduce).size());
    EXPECT_EQ(row["seconds"], row["algorithm_seconds"][row["chosen"].get<std::string>()]);
  }
  const std::string text = FormatSweepReport(r);
  EXPECT_THAT(text, HasSubstr("hierarchical_ring_tree"));
  EXPECT_THAT(text, HasSubstr("where the choice changes"));
}

TEST(SweepReportTest, Errors) {
  EXPECT_THAT(SweepReport(ReferenceMachine(), 0, 1e6, 2), IsInvalidArgument("min_bytes=0"));
  EXPECT_THAT(SweepReport(ReferenceMachine(), 10, 5, 2), IsInvalidArgument("max_bytes=5"));
  EXPECT_THAT(SweepReport(ReferenceMachine(), 1, 1e6, 1), IsInvalidArgument("step_factor=1"));
  EXPECT_THAT(SweepReport(ReferenceMachine(), 1, 1e12, 1.0001), IsInvalidArgument("more than"));
  EXPECT_THAT(SizeReport(ReferenceMachine(), -1), IsInvalidArgument("bytes=-1"));
  PredictRequest bad = ReferenceMachine();
  bad.topology.nodes = 0;
  EXPECT_THAT(SizeReport(bad, 1), IsInvalidArgument("nodes=0"));
}

TEST(FormatTest, Units) {
  EXPECT_EQ(FormatSeconds(0), "0 s");
  EXPECT_EQ(FormatSeconds(2.5), "2.5 s");
  EXPECT_EQ(FormatSeconds(20.3175e-3), "20.32 ms");
  EXPECT_EQ(FormatSeconds(1.5e-6), "1.5 us");
  EXPECT_EQ(FormatSeconds(3e-9), "3 ns");
  EXPECT_EQ(FormatBytes(512), "512 B");
  EXPECT_EQ(FormatBytes(1136448), "1.136 MB");
  EXPECT_EQ(FormatBytes(1e9), "1 GB");
}

}  // namespace
}  // namespace models
}  // namespace kcoll
