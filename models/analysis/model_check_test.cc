#include "models/analysis/model_check.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/cost_model.h"
#include "models/test_util.h"

namespace kcoll {
namespace models {
namespace {

Topology TwoRanks() {
  Topology t;
  t.nodes = 1;
  t.ranks_per_node = 2;
  return t;
}

// alpha 1 us, 1 GB/s, free reduction.
Profile Simple() {
  Profile p;
  p.intra = p.inter = {1e-6, 1e-9};
  return p;
}

// Ring AllReduce on 2 ranks: 2 rounds of S/2. S = 1000 B: 2 (1 us + 500 ns) = 3 us.
TEST(ModelCheckTest, PredictionAndErrorByHand) {
  const ModelCheck check = Unwrap(ModelCheck::Create(TwoRanks(), Simple()));
  const RowPrediction slower = Unwrap(check.Predict({Collective::kAllReduce, Algorithm::kRing, 1000, 2e-6}));
  EXPECT_TRUE(slower.modeled);
  EXPECT_NEAR(slower.predicted_seconds, 3e-6, 1e-15);
  EXPECT_NEAR(slower.error_percent, 50.0, 1e-9);  // pessimistic
  const RowPrediction faster = Unwrap(check.Predict({Collective::kAllReduce, Algorithm::kRing, 1000, 4e-6}));
  EXPECT_NEAR(faster.error_percent, -25.0, 1e-9);  // optimistic
  EXPECT_EQ(FormatPrediction(slower), "3 us (+50.0%)");
  EXPECT_EQ(FormatPrediction(faster), "3 us (-25.0%)");
}

TEST(ModelCheckTest, AgreesWithTheCostModelForEveryPair) {
  Topology t;
  t.nodes = 2;
  t.ranks_per_node = 3;
  Profile p = Simple();
  p.inter = {5e-6, 1e-10};
  p.gamma_s_per_byte = 2e-10;
  const ModelCheck check = Unwrap(ModelCheck::Create(t, p));
  for (Collective c : AllCollectives()) {
    for (Algorithm a : ApplicableAlgorithms(c)) {
      const RowPrediction row = Unwrap(check.Predict({c, a, 1 << 20, 1e-3}));
      ASSERT_TRUE(row.modeled);
      EXPECT_DOUBLE_EQ(row.predicted_seconds, Unwrap(PredictSeconds(c, a, 1 << 20, t, p)))
          << CollectiveName(c) << " " << AlgorithmName(a);
    }
  }
}

TEST(ModelCheckTest, MedianAbsoluteErrorPerAlgorithm) {
  // Ring predicts 3 us at 1000 B; tree (binomial, 2 ranks): reduce + broadcast = 2 rounds of S = 2 (1 + 1) us = 4 us.
  const std::vector<Measurement> rows = {
      {Collective::kAllReduce, Algorithm::kRing, 1000, 2e-6},    // +50%
      {Collective::kAllReduce, Algorithm::kTree, 1000, 5e-6},    // -20%
      {Collective::kAllReduce, Algorithm::kRing, 1000, 4e-6},    // -25%
      {Collective::kAllReduce, Algorithm::kLinear, 1000, 1e-6},  // no model
      {Collective::kAllReduce, Algorithm::kRing, 1000, 3e-6},    // 0%
  };
  const ModelComparison result = Unwrap(CompareWithModel(rows, TwoRanks(), Simple()));
  ASSERT_EQ(result.rows.size(), 5u);
  EXPECT_NEAR(result.rows[1].predicted_seconds, 4e-6, 1e-15);
  EXPECT_NEAR(result.rows[1].error_percent, -20.0, 1e-9);
  EXPECT_FALSE(result.rows[3].modeled);
  EXPECT_EQ(FormatPrediction(result.rows[3]), "no model");
  ASSERT_EQ(result.per_algorithm.size(), 2u);
  EXPECT_EQ(result.per_algorithm[0].algorithm, Algorithm::kRing);
  EXPECT_EQ(result.per_algorithm[0].rows, 3);
  EXPECT_NEAR(result.per_algorithm[0].median_abs_error_percent, 25.0, 1e-9);  // median of 50, 25, 0
  EXPECT_EQ(result.per_algorithm[1].algorithm, Algorithm::kTree);
  EXPECT_NEAR(result.per_algorithm[1].median_abs_error_percent, 20.0, 1e-9);
  // An even count takes the lower of the middle two (models/analysis/statistics.h): of 50 and 25, 25.
  const std::vector<AlgorithmError> two = SummarizeErrors({result.rows[0], result.rows[2]});
  ASSERT_EQ(two.size(), 1u);
  EXPECT_NEAR(two[0].median_abs_error_percent, 25.0, 1e-9);
}

TEST(ModelCheckTest, BadRowsAreNamed) {
  EXPECT_THAT(CompareWithModel({{Collective::kAllReduce, Algorithm::kRing, 8, 1e-6},
                                {Collective::kAllReduce, Algorithm::kRing, 8, 0}},
                               TwoRanks(), Simple()),
              IsInvalidArgument("rows[1]: seconds=0 must be finite and > 0"));
  EXPECT_THAT(CompareWithModel({{Collective::kAllReduce, Algorithm::kAuto, 8, 1e-6}}, TwoRanks(), Simple()),
              IsInvalidArgument("rows[0]: algorithm=auto"));
  EXPECT_THAT(CompareWithModel({{Collective::kAllReduce, Algorithm::kRing, -1, 1e-6}}, TwoRanks(), Simple()),
              IsInvalidArgument("rows[0]: bytes=-1"));
  Profile bad = Simple();
  bad.intra.alpha_s = -1;
  EXPECT_THAT(ModelCheck::Create(TwoRanks(), bad), IsInvalidArgument("intra"));
}

}  // namespace
}  // namespace models
}  // namespace kcoll
