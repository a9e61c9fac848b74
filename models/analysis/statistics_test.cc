#include "models/analysis/statistics.h"

#include "gtest/gtest.h"

namespace kcoll {
namespace models {
namespace {

TEST(PercentileTest, NearestRank) {
  const std::vector<double> ten = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
  EXPECT_EQ(Percentile(ten, 10), 1);   // ceil(1.0) = 1st
  EXPECT_EQ(Percentile(ten, 11), 2);   // ceil(1.1) = 2nd
  EXPECT_EQ(Percentile(ten, 95), 10);  // ceil(9.5) = 10th
  EXPECT_EQ(Percentile(ten, 100), 10);
  EXPECT_EQ(Percentile(ten, 0), 1);
  EXPECT_EQ(Percentile({}, 50), 0);
}

TEST(MedianTest, MiddleValueOrLowerOfTheMiddleTwo) {
  EXPECT_EQ(Median({3, 1, 2}), 2);
  EXPECT_EQ(Median({4, 1, 3, 2}), 2);
  EXPECT_EQ(Median({7}), 7);
  EXPECT_EQ(Median({}), 0);
}

}  // namespace
}  // namespace models
}  // namespace kcoll
