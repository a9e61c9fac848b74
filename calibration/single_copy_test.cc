#include "calibration/single_copy.h"

#include <vector>

#include "gtest/gtest.h"

namespace kcoll {
namespace calibration {
namespace {

Series Of(const std::vector<double>& seconds) {
  Series s;
  double bytes = 16384;
  for (double t : seconds) {
    s.samples.push_back({bytes, t});
    s.reps.push_back(10);
    bytes *= 4;
  }
  return s;
}

// Sizes 16 KiB, 64 KiB, 256 KiB, 1 MiB.
TEST(SingleCopyThresholdTest, FromTheSizeWhereSingleCopyWinsToTheEnd) {
  EXPECT_EQ(ChooseSingleCopyThreshold(Of({1, 2, 4, 8}), Of({2, 3, 3, 6})), 262144);
  EXPECT_EQ(ChooseSingleCopyThreshold(Of({1, 2, 4, 8}), Of({0.5, 1, 2, 4})), 16384);
}

TEST(SingleCopyThresholdTest, NeverWhenItLosesAtTheLargestSize) {
  // A win in the middle does not count: the slots are faster from there on.
  EXPECT_EQ(ChooseSingleCopyThreshold(Of({1, 2, 4, 8}), Of({2, 1, 3, 9})), 0);
  EXPECT_EQ(ChooseSingleCopyThreshold(Of({1, 2, 4, 8}), Of({2, 4, 8, 16})), 0);
}

TEST(SingleCopyThresholdTest, ATieKeepsTheSlots) {
  // Within the margin (5%) is not a win.
  EXPECT_EQ(ChooseSingleCopyThreshold(Of({1, 2, 4, 8}), Of({2, 4, 3.9, 7.8})), 0);
  EXPECT_EQ(ChooseSingleCopyThreshold(Of({1, 2, 4, 8}), Of({2, 4, 3.8, 7.6})), 262144);
}

TEST(SingleCopyThresholdTest, MissingOrEmptyMeasurementsChooseNever) {
  EXPECT_EQ(ChooseSingleCopyThreshold(Series(), Series()), 0);
  EXPECT_EQ(ChooseSingleCopyThreshold(Of({1, 2, 4, 8}), Of({0.5, 1})), 0);
  EXPECT_EQ(ChooseSingleCopyThreshold(Of({1, 2, 4, 0}), Of({0.5, 1, 2, 4})), 0);
}

}  // namespace
}  // namespace calibration
}  // namespace kcoll
