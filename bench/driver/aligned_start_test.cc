#include "bench/driver/aligned_start.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

#include "collectives/transport/mpi/host_ranks.h"
#include "gtest/gtest.h"
#include "tests/matchers.h"

namespace kcoll {
namespace bench {
namespace {

int Rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int Size() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// Each rank's clock: the steady clock shifted by a quarter of a second per rank, as clocks of different hosts differ.
constexpr double kShiftPerRank = 0.25;

double ShiftedClock() { return SteadySeconds() + kShiftPerRank * Rank(); }

double Max(double v) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return v;
}

double Min(double v) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  return v;
}

// Ranks that share a machine share its clock: none measures, and the offsets are exactly 0.
TEST(ClockOffsetTest, RanksOfOneMachineTakeOffsetZero) {
  MPI_Comm machine = HostCommunicator(MPI_COMM_WORLD);
  absl::StatusOr<ClockOffset> offset = MeasureClockOffset(MPI_COMM_WORLD, machine, 20, SteadySeconds);
  MPI_Comm_free(&machine);
  ASSERT_TRUE(offset.ok()) << offset.status();
  EXPECT_EQ(offset->offset_s, 0);
  EXPECT_EQ(offset->round_trip_s, 0);
}

// Every rank measured (no group known): one clock read by all gives an offset of 0 within half the round trip, as the
// peer's reading falls inside rank 0's round trip.
TEST(ClockOffsetTest, OneClockMeasuredGivesAnOffsetWithinHalfTheRoundTrip) {
  absl::StatusOr<ClockOffset> offset = MeasureClockOffset(MPI_COMM_WORLD, MPI_COMM_SELF, 20, SteadySeconds);
  ASSERT_TRUE(offset.ok()) << offset.status();
  if (Rank() == 0) {
    EXPECT_EQ(offset->offset_s, 0);
    EXPECT_EQ(offset->round_trip_s, 0);
  } else {
    EXPECT_GT(offset->round_trip_s, 0);
    EXPECT_LE(std::abs(offset->offset_s), offset->round_trip_s / 2 + 1e-9);
  }
}

TEST(ClockOffsetTest, RecoversShiftedClocks) {
  absl::StatusOr<ClockOffset> offset = MeasureClockOffset(MPI_COMM_WORLD, MPI_COMM_SELF, 20, ShiftedClock);
  ASSERT_TRUE(offset.ok()) << offset.status();
  const double truth = -kShiftPerRank * Rank();
  EXPECT_LE(std::abs(offset->offset_s - truth), offset->round_trip_s / 2 + 1e-9)
      << "rank " << Rank() << ": offset " << offset->offset_s << " s, round trip " << offset->round_trip_s << " s";
}

// "Machines" of two consecutive ranks, each with its own clock: the lower rank of each measures and the other takes
// its offset, bit for bit.
TEST(ClockOffsetTest, AGroupTakesItsLowestRanksOffset) {
  MPI_Comm pairs = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, Rank() / 2, Rank(), &pairs);
  auto pair_clock = [] { return SteadySeconds() + kShiftPerRank * (Rank() / 2); };
  absl::StatusOr<ClockOffset> offset = MeasureClockOffset(MPI_COMM_WORLD, pairs, 20, pair_clock);
  ASSERT_TRUE(offset.ok()) << offset.status();
  double lower[2] = {offset->offset_s, offset->round_trip_s};
  MPI_Bcast(lower, 2, MPI_DOUBLE, 0, pairs);
  MPI_Comm_free(&pairs);
  EXPECT_EQ(offset->offset_s, lower[0]);
  EXPECT_EQ(offset->round_trip_s, lower[1]);
  const double truth = -kShiftPerRank * (Rank() / 2);
  EXPECT_LE(std::abs(offset->offset_s - truth), offset->round_trip_s / 2 + 1e-9) << "rank " << Rank();
  if (Rank() >= 2) EXPECT_GT(offset->round_trip_s, 0);
}

TEST(ClockOffsetTest, RefusesExchangesOutOfRange) {
  EXPECT_THAT(MeasureClockOffset(MPI_COMM_WORLD, MPI_COMM_SELF, 0, SteadySeconds),
              IsInvalidArgument("exchanges 0 is not in [1, 10000]"));
  EXPECT_THAT(MeasureClockOffset(MPI_COMM_WORLD, MPI_COMM_SELF, 10001, SteadySeconds),
              IsInvalidArgument("exchanges 10001"));
}

// Clocks a quarter of a second apart per rank: every rank leaves the wait at one moment of the true (shared) clock,
// not at the same reading of its own, and never before the instant it was given.
TEST(AlignedStartTest, RanksStartTogetherOnShiftedClocks) {
  absl::StatusOr<AlignedStart> start =
      AlignedStart::Create(MPI_COMM_WORLD, MPI_COMM_SELF, SpinWhileWaiting(MPI_COMM_WORLD), ShiftedClock);
  ASSERT_TRUE(start.ok()) << start.status();
  EXPECT_GT(start->margin_s(), 0);
  EXPECT_LE(start->margin_s(), AlignedStart::kMaxMarginSeconds);
  for (int i = 0; i < 20; ++i) {
    const double instant = start->WaitForNextInstant();
    const double left = SteadySeconds();  // the true clock, shared by the ranks of this host
    EXPECT_GE(ShiftedClock(), instant);
    // The instant on rank 0's clock is one value on every rank.
    const double on_rank0 = instant + start->offset().offset_s;
    EXPECT_NEAR(Max(on_rank0), Min(on_rank0), 1e-9);
    // Half a round trip of offset error, and a rank waiting for its core: far below the clocks' shift.
    EXPECT_LT(Max(left) - Min(left), kShiftPerRank / 5) << "iteration " << i;
  }
}

// Rank 1's clock sleeps past any margin on the read just after an agreement, so that it reaches that instant late.
// (The other ranks are not checked: on a loaded machine a rank may be late by itself.)
TEST(AlignedStartTest, ALateRankIsCountedAndTheMarginDoubles) {
  if (Size() < 2) GTEST_SKIP() << "needs 2 ranks: one reaches its instant late";
  int calls = 0, sleep_on = -1;
  auto clock = [&calls, &sleep_on] {
    if (++calls == sleep_on) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return SteadySeconds();
  };
  absl::StatusOr<AlignedStart> start = AlignedStart::Create(MPI_COMM_WORLD, MPI_COMM_SELF, false, clock);
  ASSERT_TRUE(start.ok()) << start.status();
  start->WaitForNextInstant();
  const int late_before = start->late_starts();
  // The first read of a wait is the rank's reading for the agreement, the second the one after it.
  if (Rank() == 1) sleep_on = calls + 2;
  start->WaitForNextInstant();
  const double margin = start->margin_s();
  if (Rank() == 1) {
    EXPECT_TRUE(start->last_was_late());
    EXPECT_EQ(start->late_starts(), late_before + 1);
  }
  start->WaitForNextInstant();  // its agreement carries rank 1's late flag to every rank
  EXPECT_EQ(start->margin_s(), std::min(2 * margin, AlignedStart::kMaxMarginSeconds));
  EXPECT_EQ(Max(start->margin_s()), Min(start->margin_s()));
}

}  // namespace
}  // namespace bench
}  // namespace kcoll
