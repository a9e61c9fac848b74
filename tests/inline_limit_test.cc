// The inline lane's measured limit (collectives/inline_path.h): the rule that turns the timings into a limit, and what
// KCOLL_INLINE_MAX_BYTES says to it.
#include <limits>
#include <vector>

#include "collectives/inline_path.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/scoped_env.h"

namespace kcoll {
namespace {

std::vector<InlineTiming> Timings(const std::vector<double>& inline_us, const std::vector<double>& slots_us) {
  std::vector<InlineTiming> timings;
  for (size_t i = 0; i < inline_us.size(); ++i) {
    timings.push_back(InlineTiming{kInlineCandidateBytes[i], inline_us[i] * 1e-6, slots_us[i] * 1e-6});
  }
  return timings;
}

TEST(ChooseInlineLimit, KeepsEverySizeTheLaneWinsUpToTheFirstItLoses) {
  EXPECT_EQ(ChooseInlineLimit(Timings({1.0, 1.2, 1.5, 2.0}, {2.0, 2.0, 2.1, 2.5})), 2048u);
  EXPECT_EQ(ChooseInlineLimit(Timings({1.0, 1.2, 2.5, 3.0}, {2.0, 2.0, 2.1, 2.5})), 512u);
  // A win past a loss does not count: the lane would be taken at sizes either side of one it loses.
  EXPECT_EQ(ChooseInlineLimit(Timings({1.0, 2.5, 1.5, 2.0}, {2.0, 2.0, 2.1, 2.5})), 256u);
  // A tie goes to the lane (it has less to go wrong: no slot, no algorithm lookup).
  EXPECT_EQ(ChooseInlineLimit(Timings({2.0, 2.0, 2.0, 2.0}, {2.0, 2.0, 2.0, 2.0})), 2048u);
  EXPECT_EQ(ChooseInlineLimit(Timings({1.0, 1.2, 1.5, 2.0, 3.0}, {2.0, 2.0, 2.1, 2.5, 3.1})), 4096u);
}

TEST(ChooseInlineLimit, NeverBelowTheFloor) {
  EXPECT_EQ(ChooseInlineLimit(Timings({3.0, 3.0, 3.0, 3.0}, {2.0, 2.0, 2.0, 2.0})), kInlineFloorBytes);
  EXPECT_EQ(ChooseInlineLimit({}), kInlineFloorBytes);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(ChooseInlineLimit(Timings({nan, 1.0}, {2.0, 2.0})), kInlineFloorBytes);
}

TEST(ChooseInlineLimit, CandidatesRiseWithinWhatTheLinesHold) {
  size_t previous = kInlineFloorBytes;
  for (size_t bytes : kInlineCandidateBytes) {
    EXPECT_GT(bytes, previous);
    previous = bytes;
  }
  EXPECT_LE(previous, InlineExchange::kMaxPayloadBytes);
}

TEST(DescribeInlineTimings, GivesEachSizeBothWays) {
  EXPECT_EQ(DescribeInlineTimings(Timings({1.1, 2.46}, {1.85, 1.85})),
            "inline / over the slots, us per call: 256 B 1.10/1.85, 512 B 2.46/1.85");
}

TEST(FormatInlineBytes, BytesBelowAKibibyteAndKibibytesAbove) {
  EXPECT_EQ(FormatInlineBytes(0), "0 B");
  EXPECT_EQ(FormatInlineBytes(300), "300 B");
  EXPECT_EQ(FormatInlineBytes(2048), "2 KiB");
  EXPECT_EQ(FormatInlineBytes(1536), "1536 B");
}

TEST(InlineLimitSetting, UnsetOrMeasureLeavesItToTheCommunicator) {
  {
    testing::ScopedEnv unset("KCOLL_INLINE_MAX_BYTES", nullptr);
    ASSERT_TRUE(InlineLimitSetting().ok());
    EXPECT_FALSE(InlineLimitSetting()->has_value());
  }
  testing::ScopedEnv measure("KCOLL_INLINE_MAX_BYTES", "measure");
  ASSERT_TRUE(InlineLimitSetting().ok());
  EXPECT_FALSE(InlineLimitSetting()->has_value());
}

TEST(InlineLimitSetting, ASizePinsIt) {
  testing::ScopedEnv pinned("KCOLL_INLINE_MAX_BYTES", "512");
  ASSERT_TRUE(InlineLimitSetting().ok());
  EXPECT_EQ(InlineLimitSetting()->value_or(0), 512u);
  testing::ScopedEnv off("KCOLL_INLINE_MAX_BYTES", "0");
  EXPECT_EQ(InlineLimitSetting()->value_or(1), 0u);
}

TEST(InlineLimitSetting, AnythingElseIsRefusedNamingTheVariable) {
  for (const char* bad : {"lots", "8K", "-1"}) {
    testing::ScopedEnv value("KCOLL_INLINE_MAX_BYTES", bad);
    const absl::StatusOr<std::optional<size_t>> setting = InlineLimitSetting();
    ASSERT_FALSE(setting.ok()) << bad;
    EXPECT_EQ(setting.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(setting.status().message()), ::testing::HasSubstr("KCOLL_INLINE_MAX_BYTES")) << bad;
  }
}

}  // namespace
}  // namespace kcoll
