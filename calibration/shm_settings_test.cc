#include "calibration/shm_settings.h"

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

// 2 ranks, 8 slots, a 32 MiB segment: every candidate fits. 16 ranks: 256 channels x 8 slots leave 16 KiB.
TEST(SlotBytesCandidatesTest, ThoseTheSegmentHasRoomForAndTheDefault) {
  EXPECT_EQ(SlotBytesCandidates(2, 8, size_t{32} << 20, 65536),
            (std::vector<size_t>{16384, 32768, 65536, 131072, 262144}));
  EXPECT_EQ(SlotBytesCandidates(16, 8, size_t{32} << 20, 16384), (std::vector<size_t>{16384}));
  EXPECT_EQ(SlotBytesCandidates(8, 8, size_t{32} << 20, 65536), (std::vector<size_t>{16384, 32768, 65536}));
  // A default outside the range is still a candidate.
  EXPECT_EQ(SlotBytesCandidates(32, 8, size_t{32} << 20, 4096), (std::vector<size_t>{4096}));
}

std::vector<Series> Candidates(const std::vector<std::vector<double>>& seconds) {
  std::vector<Series> out;
  for (const auto& s : seconds) out.push_back(Of(s));
  return out;
}

TEST(ChooseSlotBytesTest, TheLowestRelativeTimeOverTheSizes) {
  const std::vector<size_t> sizes = {16384, 65536, 262144};
  // 256 KiB is fastest at the two larger sizes and ties at the smallest.
  EXPECT_EQ(ChooseSlotBytes(sizes, Candidates({{1, 4, 8}, {1, 2, 4}, {1, 1.5, 3}}), 65536), 262144u);
  // 16 KiB, the default, is fastest everywhere.
  EXPECT_EQ(ChooseSlotBytes(sizes, Candidates({{1, 2, 4}, {1.2, 3, 5}, {1.5, 4, 6}}), 16384), 16384u);
}

TEST(ChooseSlotBytesTest, ASmallLeadKeepsTheDefault) {
  const std::vector<size_t> sizes = {16384, 65536};
  // 16 KiB's sum is 3.0 against the default's 3.04 (within 3%): the default stays.
  EXPECT_EQ(ChooseSlotBytes(sizes, Candidates({{1, 2, 4}, {1, 2.08, 4}}), 65536), 65536u);
  EXPECT_EQ(ChooseSlotBytes(sizes, Candidates({{1, 2, 4}, {1, 2.4, 4.8}}), 65536), 16384u);
}

TEST(ChooseSlotBytesTest, IncompleteMeasurementsDoNotDecide) {
  const std::vector<size_t> sizes = {16384, 65536};
  // A size some candidate lacks counts for none: 16 KiB's missing time at 1 MiB does not make it win.
  EXPECT_EQ(ChooseSlotBytes(sizes, Candidates({{1, 1, 0}, {1, 1, 4}}), 65536), 65536u);
  EXPECT_EQ(ChooseSlotBytes(sizes, Candidates({{1, 2, 4}}), 65536), 65536u);
  EXPECT_EQ(ChooseSlotBytes({}, {}, 65536), 65536u);
}

}  // namespace
}  // namespace calibration
}  // namespace kcoll
