// CopyChoice: both ways measured first, then the faster one, the other one explored now and then, and a change of
// state followed.
#include "collectives/transport/shm/copy_choice.h"

#include <algorithm>
#include <array>
#include <vector>

#include "gtest/gtest.h"
#include "tests/matchers.h"

namespace kcoll {
namespace testing {
namespace {

// Explorations spaced by doubling from `every` up to `at_most`, whatever they cost (a budget of all the time).
CopyChoice::Options Spacing(int every, int at_most = 64) {
  CopyChoice::Options o;
  o.explore_every = every;
  o.explore_at_most_every = at_most;
  o.explore_budget = 1.0;
  return o;
}

// The way of the next call of `group`, deciding on this rank's averages alone where the call decides (one rank: the
// least across ranks is its own).
bool Step(CopyChoice& choice, uint64_t group) {
  const CopyChoice::Call call = choice.Next(group);
  if (!call.decides) return call.single_copy;
  return choice.Decide(group, choice.AverageSeconds(group, false), choice.AverageSeconds(group, true));
}

// Runs `calls` calls of `group`, each taking slots_s or single_s by the way chosen; returns how many went single copy.
int RunCalls(CopyChoice& choice, uint64_t group, int calls, double slots_s, double single_s) {
  int single = 0;
  for (int i = 0; i < calls; ++i) {
    const bool way = Step(choice, group);
    single += way ? 1 : 0;
    choice.Record(group, way, way ? single_s : slots_s);
  }
  return single;
}

// The ranks decide on each way's smallest average: in a Broadcast through the slots the root's time includes its wait
// for the receiver (figures from a trace of a 1 MiB Broadcast on 2 ranks), so the sums would take single copy where
// the call itself ran faster through the slots.
TEST(CopyChoice, RanksDecideOnEachWaysLeastAverage) {
  const std::vector<std::array<double, 2>> broadcast = {{170e-6, 120e-6}, {90e-6, 120e-6}};  // root, receiver
  const std::array<double, 2> least = CopyChoice::LeastAcrossRanks(broadcast);
  EXPECT_EQ(least[0], 90e-6);
  EXPECT_EQ(least[1], 120e-6);
  CopyChoice by_least, by_sum;
  const uint64_t g = CopyChoice::Group(2, 1 << 20);
  EXPECT_FALSE(by_least.Decide(g, least[0], least[1]));       // the slots
  EXPECT_TRUE(by_sum.Decide(g, 170e-6 + 90e-6, 2 * 120e-6));  // what the sums took
  EXPECT_EQ(CopyChoice::LeastAcrossRanks({{3, 4}}), (std::array<double, 2>{3, 4}));
}

TEST(CopyChoice, MeasuresOneWayThenTheOtherFirst) {
  CopyChoice choice;
  const uint64_t g = CopyChoice::Group(1, 1 << 20);
  for (uint64_t i = 0; i < 2 * (CopyChoice::kFirstCallsEachWay + 1); ++i) {
    const CopyChoice::Call call = choice.Next(g);
    EXPECT_FALSE(call.decides);
    const bool way = call.single_copy;
    EXPECT_EQ(way, i > CopyChoice::kFirstCallsEachWay) << "call " << i;
    EXPECT_FALSE(choice.Prefers(g));
    EXPECT_THAT(choice.Describe(g), HasSubstr("measuring both ways"));
    choice.Record(g, way, way ? 1e-4 : 2e-4);
  }
  EXPECT_TRUE(choice.Prefers(g));
  EXPECT_TRUE(choice.Next(g).decides);  // the first call after the measures decides
}

TEST(CopyChoice, TakesTheFasterWayAndExploresTheOther) {
  CopyChoice choice(Spacing(32, 32));
  const uint64_t g = CopyChoice::Group(1, 1 << 20);
  RunCalls(choice, g, 8, 200e-6, 80e-6);
  ASSERT_TRUE(choice.Prefers(g));
  // 64 calls more: all single copy but one exploration of the slots (two calls), 32 calls after the decision.
  EXPECT_EQ(RunCalls(choice, g, 64, 200e-6, 80e-6), 62);
  EXPECT_TRUE(choice.Prefers(g));
  EXPECT_NEAR(choice.AverageSeconds(g, true), 80e-6, 1e-9);
  EXPECT_NEAR(choice.AverageSeconds(g, false), 200e-6, 1e-9);
  EXPECT_THAT(choice.Describe(g), HasSubstr("single copy (80.0 us) over the slots (200.0 us) after 72 calls"));

  CopyChoice other(Spacing(32, 32));
  RunCalls(other, g, 8, 50e-6, 80e-6);
  EXPECT_FALSE(other.Prefers(g));
  EXPECT_EQ(RunCalls(other, g, 64, 50e-6, 80e-6), 2);
  EXPECT_THAT(other.Describe(g), HasSubstr("the slots (50.0 us) over single copy (80.0 us)"));
}

TEST(CopyChoice, ExploresHalfAsOftenEachTimeTheOtherWayIsStillSlower) {
  CopyChoice choice(Spacing(4, 32));
  const uint64_t g = CopyChoice::Group(1, 1 << 20);
  RunCalls(choice, g, 8, 100e-6, 200e-6);
  std::vector<int> explored;  // the calls that start an exploration (two calls single copy)
  bool last = false;
  for (int call = 8; call < 200; ++call) {
    const bool way = Step(choice, g);
    if (way && !last) explored.push_back(call);
    last = way;
    choice.Record(g, way, way ? 200e-6 : 100e-6);
  }
  ASSERT_GE(explored.size(), 5u);
  EXPECT_EQ(explored[0], 8 + 4);  // explore_every calls after the first decision
  for (size_t i = 1; i < explored.size(); ++i) {
    // The spacing doubles from explore_every up to explore_at_most_every, counted from the call that decides, which
    // follows the exploration's two calls.
    const int spacing = std::min(4 << i, 32);
    EXPECT_EQ(explored[i] - explored[i - 1], spacing + 2) << "exploration " << i;
  }
}

// The calls that start an exploration of single copy (the slots preferred) among `calls` more calls.
std::vector<int> Explorations(CopyChoice& choice, uint64_t g, int calls, double slots_s, double single_s) {
  std::vector<int> starts;
  bool last = false;
  for (int call = 0; call < calls; ++call) {
    const bool way = Step(choice, g);
    if (way && !last) starts.push_back(call);
    last = way;
    choice.Record(g, way, way ? single_s : slots_s);
  }
  return starts;
}

TEST(CopyChoice, ExploresNoMoreOftenThanItsBudgetAffords) {
  CopyChoice choice;  // explore_budget 0.03
  const uint64_t g = CopyChoice::Group(1, 1 << 20);
  RunCalls(choice, g, 8, 100e-6, 300e-6);
  ASSERT_FALSE(choice.Prefers(g));
  // Single copy 3x slower: an exploration costs two calls of 200 us more, 4 calls' worth of the slots' 100 us; 3% of
  // the time affords one in 134 calls, where the doubling alone would look every 16 to 64. The first look comes 16
  // calls after the first decision all the same (the measures may have been unlucky), the next ones 134 apart.
  const std::vector<int> starts = Explorations(choice, g, 1000, 100e-6, 300e-6);
  ASSERT_GE(starts.size(), 5u);
  EXPECT_EQ(starts[0], 16);
  for (size_t i = 1; i < starts.size(); ++i) EXPECT_EQ(starts[i] - starts[i - 1], 134 + 2) << i;
  // Ways 10% apart: an exploration costs 0.2 calls, so the doubling spacing rules (16, 32, 64, 64, ...).
  CopyChoice close;
  RunCalls(close, g, 8, 100e-6, 110e-6);
  const std::vector<int> close_starts = Explorations(close, g, 300, 100e-6, 110e-6);
  ASSERT_GE(close_starts.size(), 4u);
  EXPECT_EQ(close_starts[0], 16);
  EXPECT_EQ(close_starts[1] - close_starts[0], 32 + 2);
  EXPECT_EQ(close_starts[2] - close_starts[1], 64 + 2);
  EXPECT_EQ(close_starts[3] - close_starts[2], 64 + 2);
  // A change of state is still followed: the slots slow to 500 us, single copy is taken at the next exploration.
  RunCalls(choice, g, 136 + 3, 500e-6, 300e-6);
  EXPECT_TRUE(choice.Prefers(g));
}

TEST(CopyChoice, FollowsAChangeOfStateBothWays) {
  CopyChoice choice(Spacing(16));
  const uint64_t g = CopyChoice::Group(3, 4 << 20);
  RunCalls(choice, g, 8, 100e-6, 200e-6);  // the slots are faster
  ASSERT_FALSE(choice.Prefers(g));
  // The slots slow down to 500 us: the next exploration, 16 calls after the decision, and the call after it see it.
  RunCalls(choice, g, 16 + 3, 500e-6, 200e-6);
  EXPECT_TRUE(choice.Prefers(g));
  // They recover: the exploration 16 calls later beats the way taken, and the call after it switches back.
  RunCalls(choice, g, 16 + 3, 100e-6, 200e-6);
  EXPECT_FALSE(choice.Prefers(g));
}

TEST(CopyChoice, AnExplorationIsFollowedByACallThatDecides) {
  CopyChoice choice(Spacing(4, 4));
  const uint64_t g = CopyChoice::Group(1, 1 << 20);
  RunCalls(choice, g, 8, 100e-6, 200e-6);
  for (int call = 8; call < 40; ++call) {
    const CopyChoice::Call next = choice.Next(g);
    const bool way = next.decides ? choice.Decide(g, 100e-6, 200e-6) : next.single_copy;
    // The decisions come at call 8 and right after each exploration's two calls (12-13, 18-19, ...): 14, 20, ...
    EXPECT_EQ(next.decides, call == 8 || (call > 8 && (call - 14) % 6 == 0)) << "call " << call;
    EXPECT_EQ(way, call >= 12 && (call - 12) % 6 < 2) << "call " << call;
    choice.Record(g, way, way ? 200e-6 : 100e-6);
  }
  // Sums that say otherwise (another rank saw the single copy faster) turn the way at once.
  while (!choice.Next(g).decides) choice.Record(g, true, 200e-6);
  EXPECT_TRUE(choice.Decide(g, 400e-6, 200e-6));
  EXPECT_TRUE(choice.Prefers(g));
}

TEST(CopyChoice, WaysWithinTheMarginDoNotTradePlaces) {
  CopyChoice choice(Spacing(4, 4));
  const uint64_t g = CopyChoice::Group(1, 1 << 20);
  RunCalls(choice, g, 8, 100e-6, 102e-6);
  ASSERT_FALSE(choice.Prefers(g));
  // Each way 1-3% either side of the other, call by call: never the 5% that trades places.
  int single = 0;
  for (int call = 0; call < 200; ++call) {
    const bool way = Step(choice, g);
    single += way ? 1 : 0;
    const double noise = call % 2 == 0 ? 1.01 : 0.99;
    choice.Record(g, way, (way ? 100e-6 : 101e-6) * noise);
    EXPECT_FALSE(choice.Prefers(g)) << "call " << call;
  }
  EXPECT_EQ(single, 66);  // only the explorations, two calls in every 6
  // A way 10% faster is taken.
  RunCalls(choice, g, 20, 110e-6, 100e-6);
  EXPECT_TRUE(choice.Prefers(g));
}

TEST(CopyChoice, AGroupsFirstCallEachWayIsNotCounted) {
  CopyChoice choice;
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
  CopyChoice choice;
  const uint64_t a = CopyChoice::Group(2, 1 << 20), b = CopyChoice::Group(3, 1 << 20);
  RunCalls(choice, a, 8, 200e-6, 80e-6);
  RunCalls(choice, b, 8, 80e-6, 200e-6);
  EXPECT_TRUE(choice.Prefers(a));
  EXPECT_FALSE(choice.Prefers(b));
  EXPECT_THAT(CopyChoice().Describe(a), HasSubstr("measuring both ways (0 calls)"));
}

// A way that is slow for its first calls after a change of way: the slots after a run of single copies, 1000, 600 and
// 400 us, then 200; single copy 300 us from its first call.
class WarmingSlots {
 public:
  double Time(bool single_copy) {
    if (single_copy) {
      slots_run_ = 0;
      return 300e-6;
    }
    const double warming[] = {1000e-6, 600e-6, 400e-6};
    return slots_run_ < 3 ? warming[slots_run_++] : 200e-6;
  }

 private:
  int slots_run_ = 0;
};

// Runs `calls` calls against `machine`; returns how many went single copy.
int RunAgainst(CopyChoice& choice, uint64_t g, WarmingSlots& machine, int calls) {
  int single = 0;
  for (int i = 0; i < calls; ++i) {
    const bool way = Step(choice, g);
    single += way ? 1 : 0;
    choice.Record(g, way, machine.Time(way));
  }
  return single;
}

TEST(CopyChoice, WarmUpCallsKeepAWarmingWayFromLookingSlow) {
  const uint64_t g = CopyChoice::Group(1, 4 << 20);
  // One uncounted call: the slots' 600 and 400 us are counted and single copy, 1.5x slower warm, is taken.
  CopyChoice one;
  WarmingSlots first_machine;
  RunAgainst(one, g, first_machine, 200);
  EXPECT_TRUE(one.Prefers(g));
  // Three: the measures and the explorations count the slots warm, and the slots are kept.
  CopyChoice::Options o;
  o.warmup_calls = 3;
  CopyChoice three(o);
  WarmingSlots machine;
  for (int call = 0; call < 12; ++call) {  // 3 + 3 calls each way
    const CopyChoice::Call next = three.Next(g);
    EXPECT_FALSE(next.decides) << call;
    EXPECT_EQ(next.single_copy, call >= 6) << call;
    three.Record(g, next.single_copy, machine.Time(next.single_copy));
  }
  EXPECT_NEAR(three.AverageSeconds(g, false), 200e-6, 1e-9);
  EXPECT_FALSE(three.Prefers(g));
  // Single copy explored now and then (4 calls each time, the first 3 uncounted) never turns the way: 188 calls on
  // the slots' 200 us after their warm-up.
  const int single = RunAgainst(three, g, machine, 200);
  EXPECT_FALSE(three.Prefers(g));
  EXPECT_LE(single, 200 / 16 * 4);
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
