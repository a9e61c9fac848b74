// CopyChoice: both ways measured first, then the faster one, the other one explored now and then, and a change of
// state followed.
#include "collectives/transport/shm/copy_choice.h"

#include "gtest/gtest.h"
#include "tests/matchers.h"

namespace kcoll {
namespace testing {
namespace {

// Runs `calls` calls of `group`, each taking slots_s or single_s by the way chosen; returns how many went single copy.
int RunCalls(CopyChoice& choice, uint64_t group, int calls, double slots_s, double single_s) {
  int single = 0;
  for (int i = 0; i < calls; ++i) {
    const bool way = choice.SingleCopy(group);
    single += way ? 1 : 0;
    choice.Record(group, way, way ? single_s : slots_s);
  }
  return single;
}

TEST(CopyChoice, MeasuresBothWaysInTurnFirst) {
  CopyChoice choice(32);
  const uint64_t g = CopyChoice::Group(1, 1 << 20);
  for (uint64_t i = 0; i < 2 * (CopyChoice::kFirstCallsEachWay + 1); ++i) {
    const bool way = choice.SingleCopy(g);
    EXPECT_EQ(way, i % 2 == 1) << "call " << i;
    EXPECT_FALSE(choice.Prefers(g));
    EXPECT_THAT(choice.Describe(g), HasSubstr("measuring both ways"));
    choice.Record(g, way, way ? 1e-4 : 2e-4);
  }
  EXPECT_TRUE(choice.Prefers(g));
}

TEST(CopyChoice, TakesTheFasterWayAndExploresTheOtherOnceInSoMany) {
  CopyChoice choice(32);
  const uint64_t g = CopyChoice::Group(1, 1 << 20);
  RunCalls(choice, g, 8, 200e-6, 80e-6);
  ASSERT_TRUE(choice.Prefers(g));
  // 64 calls more: all single copy but the two explorations of the slots.
  EXPECT_EQ(RunCalls(choice, g, 64, 200e-6, 80e-6), 62);
  EXPECT_TRUE(choice.Prefers(g));
  EXPECT_NEAR(choice.AverageSeconds(g, true), 80e-6, 1e-9);
  EXPECT_NEAR(choice.AverageSeconds(g, false), 200e-6, 1e-9);
  EXPECT_THAT(choice.Describe(g), HasSubstr("single copy (80.0 us) over the slots (200.0 us) after 72 calls"));

  CopyChoice other(32);
  RunCalls(other, g, 8, 50e-6, 80e-6);
  EXPECT_FALSE(other.Prefers(g));
  EXPECT_EQ(RunCalls(other, g, 64, 50e-6, 80e-6), 2);
  EXPECT_THAT(other.Describe(g), HasSubstr("the slots (50.0 us) over single copy (80.0 us)"));
}

TEST(CopyChoice, FollowsAChangeOfStateBothWays) {
  CopyChoice choice(16);
  const uint64_t g = CopyChoice::Group(3, 4 << 20);
  RunCalls(choice, g, 8, 100e-6, 200e-6);  // the slots are faster
  ASSERT_FALSE(choice.Prefers(g));
  // The slots slow down to 500 us: the calls that take them see it, and within a few the choice turns.
  RunCalls(choice, g, 8, 500e-6, 200e-6);
  EXPECT_TRUE(choice.Prefers(g));
  // They recover: only the explorations see it, and two rounds of them are enough.
  RunCalls(choice, g, 2 * 16 + 1, 100e-6, 200e-6);
  EXPECT_FALSE(choice.Prefers(g));
}

TEST(CopyChoice, AGroupsFirstCallEachWayIsNotCounted) {
  CopyChoice choice(32);
  const uint64_t g = CopyChoice::Group(0, 256 << 10);
  choice.Record(g, false, 1.0);  // a first call that paid for first use
  choice.Record(g, true, 1.0);
  for (int i = 0; i < 3; ++i) {
    choice.Record(g, false, 100e-6);
    choice.Record(g, true, 300e-6);
  }
  EXPECT_NEAR(choice.AverageSeconds(g, false), 100e-6, 1e-9);
  EXPECT_NEAR(choice.AverageSeconds(g, true), 300e-6, 1e-9);
  EXPECT_FALSE(choice.Prefers(g));
}

TEST(CopyChoice, GroupsAreKindsAndPowersOfTwo) {
  EXPECT_EQ(CopyChoice::Group(2, 64 << 10), CopyChoice::Group(2, (128 << 10) - 1));
  EXPECT_NE(CopyChoice::Group(2, 64 << 10), CopyChoice::Group(2, 128 << 10));
  EXPECT_NE(CopyChoice::Group(2, 64 << 10), CopyChoice::Group(3, 64 << 10));
  // Groups learn apart: one group's times say nothing of another's.
  CopyChoice choice(32);
  const uint64_t a = CopyChoice::Group(2, 1 << 20), b = CopyChoice::Group(3, 1 << 20);
  RunCalls(choice, a, 8, 200e-6, 80e-6);
  RunCalls(choice, b, 8, 80e-6, 200e-6);
  EXPECT_TRUE(choice.Prefers(a));
  EXPECT_FALSE(choice.Prefers(b));
  EXPECT_THAT(CopyChoice(32).Describe(a), HasSubstr("measuring both ways (0 calls)"));
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
