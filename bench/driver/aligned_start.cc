#include "bench/driver/aligned_start.h"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collectives/transport/shm/shm_execution.h"
#include "collectives/transport/shm/spin_policy.h"

namespace kcoll {
namespace bench {
namespace {

constexpr int kTag = 7301;
// Agreements timed to set the first margin.
constexpr int kTrialAgreements = 5;
// The smallest margin: a reading of the clock and a few polls.
constexpr double kMinMarginSeconds = 1e-6;

}  // namespace

double SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool SpinWhileWaiting(MPI_Comm comm) {
  // A bad KCOLL_SHM_SPIN is the transport's error to report; here it leaves the choice to the cores.
  return shm::ChooseHostSpinPolls(comm, SpinPollsFromEnv().value_or(0)) > 1;
}

absl::StatusOr<ClockOffset> MeasureClockOffset(MPI_Comm comm, MPI_Comm same_clock, int exchanges,
                                               const SecondsClock& clock) {
  if (exchanges < 1 || exchanges > 10000) {
    return absl::InvalidArgumentError(absl::StrCat("clock offset: exchanges ", exchanges, " is not in [1, 10000]"));
  }
  int rank = 0, n = 1, group_rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &n);
  MPI_Comm_rank(same_clock, &group_rank);
  int holds_rank0 = rank == 0 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &holds_rank0, 1, MPI_INT, MPI_MAX, same_clock);
  // Rank 0 learns which ranks measure: the lowest of each group without rank 0.
  const int measures = group_rank == 0 && !holds_rank0 ? 1 : 0;
  std::vector<int> measuring(rank == 0 ? n : 0);
  MPI_Gather(&measures, 1, MPI_INT, measuring.data(), 1, MPI_INT, 0, comm);
  double best[2] = {0, 0};  // offset, round trip
  if (rank == 0) {
    for (int peer = 1; peer < n; ++peer) {
      if (!measuring[peer]) continue;
      double found[2] = {0, std::numeric_limits<double>::infinity()};
      for (int k = 0; k < exchanges; ++k) {
        const double before = clock();
        MPI_Send(nullptr, 0, MPI_BYTE, peer, kTag, comm);
        double theirs = 0;
        MPI_Recv(&theirs, 1, MPI_DOUBLE, peer, kTag, comm, MPI_STATUS_IGNORE);
        const double after = clock();
        if (after - before < found[1]) {
          found[0] = (before + after) / 2 - theirs;
          found[1] = after - before;
        }
      }
      MPI_Send(found, 2, MPI_DOUBLE, peer, kTag, comm);
    }
  } else if (measures) {
    for (int k = 0; k < exchanges; ++k) {
      MPI_Recv(nullptr, 0, MPI_BYTE, 0, kTag, comm, MPI_STATUS_IGNORE);
      const double now = clock();
      MPI_Send(&now, 1, MPI_DOUBLE, 0, kTag, comm);
    }
    MPI_Recv(best, 2, MPI_DOUBLE, 0, kTag, comm, MPI_STATUS_IGNORE);
  }
  MPI_Bcast(best, 2, MPI_DOUBLE, 0, same_clock);
  ClockOffset mine;
  mine.offset_s = best[0];
  mine.round_trip_s = best[1];
  return mine;
}

absl::StatusOr<AlignedStart> AlignedStart::Create(MPI_Comm comm, MPI_Comm same_clock, bool spin, SecondsClock clock) {
  absl::StatusOr<ClockOffset> offset = MeasureClockOffset(comm, same_clock, kOffsetExchanges, clock);
  if (!offset.ok()) return offset.status();
  AlignedStart start(comm, spin, std::move(clock), *offset);
  double longest = 0;  // from the latest reading to leaving the agreement, on rank 0's clock
  for (int i = 0; i < kTrialAgreements; ++i) {
    bool any_late = false;
    const double latest = start.Agree(&any_late);
    longest = std::max(longest, start.clock_() + start.offset_.offset_s - latest);
  }
  MPI_Allreduce(MPI_IN_PLACE, &longest, 1, MPI_DOUBLE, MPI_MAX, comm);
  start.margin_s_ = std::min(std::max(2 * longest, kMinMarginSeconds), kMaxMarginSeconds);
  return start;
}

double AlignedStart::Agree(bool* any_late) {
  double v[2] = {clock_() + offset_.offset_s, was_late_ ? 1.0 : 0.0};
  MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_MAX, comm_);
  *any_late = v[1] > 0;
  return v[0];
}

double AlignedStart::WaitForNextInstant() {
  bool any_late = false;
  const double latest = Agree(&any_late);
  if (any_late) margin_s_ = std::min(2 * margin_s_, kMaxMarginSeconds);
  const double instant = latest + margin_s_ - offset_.offset_s;
  double now = clock_();
  was_late_ = now > instant;
  if (was_late_) ++late_starts_;
  while (now < instant) {
    if (spin_) {
      shm::CpuRelax();
    } else {
      sched_yield();
    }
    now = clock_();
  }
  return instant;
}

}  // namespace bench
}  // namespace kcoll
