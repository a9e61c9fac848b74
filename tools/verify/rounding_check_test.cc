// CheckRounding against results simulated here: a rank-order fold passes deterministic, one unit in the last place
// off fails it; fast accepts any order of the sum and rejects an error beyond its bound; exact takes the exact sum.
#include "tools/verify/rounding_check.h"

#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

#include "bench/data/layout.h"
#include "bench/data/rounding_data.h"
#include "collectives/kernels/exact_sum.h"
#include "gtest/gtest.h"

namespace kcoll {
namespace verify {
namespace {

constexpr int kRanks = 5;
constexpr size_t kCount = 64;

bench::CheckSpec Spec(Collective c, ReduceOp op, int rank) {
  return bench::CheckSpec{c,
                          DataType::kFloat64,
                          op,
                          0,
                          rank,
                          kRanks,
                          bench::MakeLayout(c, kCount * 8 * (c == Collective::kReduceScatter ? kRanks : 1), 8, kRanks)};
}

std::vector<std::vector<double>> Inputs(const bench::CheckSpec& spec) {
  std::vector<std::vector<double>> inputs(kRanks, std::vector<double>(spec.layout.send_count));
  for (int r = 0; r < kRanks; ++r) {
    std::memcpy(inputs[r].data(), bench::RoundingSensitiveInput(spec, r).data(), inputs[r].size() * sizeof(double));
  }
  return inputs;
}

// The mismatch CheckRounding reports, which must be at `index`.
RoundingMismatch FailureAt(const bench::CheckSpec& spec, Numerics numerics, const std::vector<double>& result,
                           size_t index) {
  const std::optional<RoundingMismatch> wrong = CheckRounding(spec, numerics, result.data());
  EXPECT_TRUE(wrong.has_value());
  if (!wrong.has_value()) return {};
  EXPECT_EQ(wrong->index, index);
  return *wrong;
}

// Ranks 0..m-1 of element i summed from the last rank down: another order than the rank order.
double SumBackwards(const std::vector<std::vector<double>>& in, size_t i, int m) {
  double s = 0;
  for (int r = m - 1; r >= 0; --r) s += in[r][i];
  return s;
}

double SumInRankOrder(const std::vector<std::vector<double>>& in, size_t i, int m) {
  double s = in[0][i];
  for (int r = 1; r < m; ++r) s += in[r][i];
  return s;
}

TEST(RoundingCheckTest, DeterministicTakesTheRankOrderBitForBit) {
  for (int rank : {0, 3}) {
    const bench::CheckSpec spec = Spec(Collective::kScan, ReduceOp::kSum, rank);
    const auto in = Inputs(spec);
    std::vector<double> result(kCount);
    for (size_t i = 0; i < kCount; ++i) result[i] = SumInRankOrder(in, i, rank + 1);
    EXPECT_FALSE(CheckRounding(spec, Numerics::kDeterministic, result.data()).has_value());
    result[7] = std::nextafter(result[7], INFINITY);
    EXPECT_EQ(FailureAt(spec, Numerics::kDeterministic, result, 7).bound, 0);
  }
}

TEST(RoundingCheckTest, TheDataTellsOrdersApartAndFastAcceptsAnyOrder) {
  const bench::CheckSpec spec = Spec(Collective::kAllReduce, ReduceOp::kSum, 2);
  const auto in = Inputs(spec);
  std::vector<double> backwards(kCount);
  size_t differ = 0;
  for (size_t i = 0; i < kCount; ++i) {
    backwards[i] = SumBackwards(in, i, kRanks);
    differ += backwards[i] != SumInRankOrder(in, i, kRanks) ? 1 : 0;
  }
  EXPECT_GT(differ, 0u) << "the rounding data must make orders differ";
  EXPECT_FALSE(CheckRounding(spec, Numerics::kFast, backwards.data()).has_value());
  EXPECT_TRUE(CheckRounding(spec, Numerics::kDeterministic, backwards.data()).has_value());
  // Off by far more than (n - 1) u sum|x|: fast fails it, naming the bound.
  backwards[5] += std::ldexp(std::fabs(backwards[5]) + 1, -20);
  EXPECT_GT(FailureAt(spec, Numerics::kFast, backwards, 5).bound, 0);
}

TEST(RoundingCheckTest, AvgAndScatteredBlocks) {
  const bench::CheckSpec spec = Spec(Collective::kReduceScatter, ReduceOp::kAvg, 4);
  const auto in = Inputs(spec);
  std::vector<double> result(kCount);
  for (size_t i = 0; i < kCount; ++i) result[i] = SumInRankOrder(in, 4 * kCount + i, kRanks) / kRanks;
  EXPECT_FALSE(CheckRounding(spec, Numerics::kDeterministic, result.data()).has_value());
  EXPECT_FALSE(CheckRounding(spec, Numerics::kFast, result.data()).has_value());
  // Rank 0's block is not rank 4's.
  for (size_t i = 0; i < kCount; ++i) result[i] = SumInRankOrder(in, i, kRanks) / kRanks;
  EXPECT_TRUE(CheckRounding(spec, Numerics::kDeterministic, result.data()).has_value());
}

TEST(RoundingCheckTest, ExactTakesTheExactSumNotTheRankOrder) {
  const bench::CheckSpec spec = Spec(Collective::kAllReduce, ReduceOp::kSum, 0);
  const auto in = Inputs(spec);
  std::vector<double> result(kCount);
  // exact_sum.h's sum (checked against a big-integer reference by //tests:exact_sum_test) of the terms listed from
  // the last rank down: the check must find the element's terms whatever order they arrive in.
  for (size_t i = 0; i < kCount; ++i) {
    std::vector<double> terms;
    for (int r = kRanks - 1; r >= 0; --r) terms.push_back(in[r][i]);
    result[i] = ExactSumOfTerms(terms.data(), 1, kRanks, kRanks);
  }
  EXPECT_FALSE(CheckRounding(spec, Numerics::kExact, result.data()).has_value());
  for (size_t i = 0; i < kCount; ++i) result[i] = SumInRankOrder(in, i, kRanks);
  EXPECT_TRUE(CheckRounding(spec, Numerics::kExact, result.data()).has_value());
}

TEST(RoundingCheckTest, RanksWithoutAResultPass) {
  const bench::CheckSpec spec = Spec(Collective::kExScan, ReduceOp::kSum, 0);
  std::vector<double> poison(kCount, NAN);
  EXPECT_FALSE(CheckRounding(spec, Numerics::kDeterministic, poison.data()).has_value());
  EXPECT_FALSE(RoundingChecked(ReduceOp::kProd, Numerics::kFast));
  EXPECT_TRUE(RoundingChecked(ReduceOp::kProd, Numerics::kDeterministic));
}

}  // namespace
}  // namespace verify
}  // namespace kcoll
