// --start aligned: every rank begins each timed iteration at one agreed instant, so that an iteration's time is the
// collective's own, from a common start to each rank's finish. With --start free (nccl-tests' loop) each rank starts
// as it leaves the previous iteration's agreement (an MPI_Allreduce of the times); between hosts over TCP the ranks
// leave it tens of microseconds apart, and the slowest rank's time of a small collective carries that spread.
//
// The instant is read on rank 0's steady clock. Before a round's timed iterations every rank r measures its offset to
// rank 0's clock by ping-pong with rank 0: of the exchanges, the one with the shortest round trip gives
// offset = (rank 0's reading before + its reading after) / 2 - rank r's reading between, uncertain by half that round
// trip. Ranks of one machine read one clock: only the lowest rank of each machine measures, and the others take its
// offset (0 on rank 0's machine), so that on one node the offsets are exact. Each iteration then takes one
// MPI_Allreduce (max) of the ranks' readings of rank 0's clock and of a flag saying a rank reached the last instant
// late; the instant is the latest reading plus a margin, and every rank waits for it on its own clock. The margin
// starts at twice the longest any rank took, in a few trial agreements, from the latest reading to leaving the
// allreduce, and doubles after each iteration some rank reached late (up to kMaxMarginSeconds).
#ifndef KCOLL_BENCH_DRIVER_ALIGNED_START_H_
#define KCOLL_BENCH_DRIVER_ALIGNED_START_H_

#include <mpi.h>

#include <functional>
#include <utility>

#include "absl/status/statusor.h"

namespace kcoll {
namespace bench {

// Seconds of the steady clock (std::chrono::steady_clock, CLOCK_MONOTONIC on Linux).
double SteadySeconds();

using SecondsClock = std::function<double()>;

// Whether a rank waiting for an instant may poll the clock without yielding: the ranks of this machine have a core
// each (shm::ChooseHostSpinPolls, with KCOLL_SHM_SPIN as the transport reads it: SpinPollsFromEnv). Collective over
// `comm`.
bool SpinWhileWaiting(MPI_Comm comm);

// This rank's clock against rank 0's.
struct ClockOffset {
  double offset_s = 0;      // add to this rank's reading to get rank 0's (0 on rank 0)
  double round_trip_s = 0;  // of the exchange it came from: the offset is uncertain by half of it (0 on rank 0)
};

// Collective over `comm`. `same_clock` splits `comm` into groups of ranks that read one clock (the ranks of a
// machine: HostCommunicator, collectives/transport/mpi/host_ranks.h; MPI_COMM_SELF: none known): the group of rank 0
// takes offset 0, and in every other group its lowest rank makes `exchanges` ping-pongs with rank 0 (one group after
// another) and the group takes that rank's offset. InvalidArgument naming `exchanges` unless it is in [1, 10000].
absl::StatusOr<ClockOffset> MeasureClockOffset(MPI_Comm comm, MPI_Comm same_clock, int exchanges,
                                               const SecondsClock& clock);

class AlignedStart {
 public:
  static constexpr double kMaxMarginSeconds = 0.1;

  // Collective: measures this rank's clock offset (MeasureClockOffset with `same_clock`, kOffsetExchanges
  // ping-pongs) and the first margin. `spin`: wait for the instant polling the clock (a core of its own); false: yield
  // the core between reads (ranks outnumber cores).
  static absl::StatusOr<AlignedStart> Create(MPI_Comm comm, MPI_Comm same_clock, bool spin,
                                             SecondsClock clock = SteadySeconds);

  // Collective: agrees on the next instant and returns when this rank's clock has reached it; the value is the
  // instant on this rank's clock (time an iteration from it).
  double WaitForNextInstant();

  const ClockOffset& offset() const { return offset_; }
  double margin_s() const { return margin_s_; }
  // Whether this rank reached the last instant after it (its clock had passed it), and how often it did so.
  bool last_was_late() const { return was_late_; }
  int late_starts() const { return late_starts_; }

  static constexpr int kOffsetExchanges = 10;

 private:
  AlignedStart(MPI_Comm comm, bool spin, SecondsClock clock, ClockOffset offset)
      : comm_(comm), spin_(spin), clock_(std::move(clock)), offset_(offset) {}

  // One agreement: the latest reading of rank 0's clock, and whether any rank reached the previous instant late.
  double Agree(bool* any_late);

  MPI_Comm comm_;
  bool spin_;
  SecondsClock clock_;
  ClockOffset offset_;
  double margin_s_ = 0;
  bool was_late_ = false;
  int late_starts_ = 0;
};

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_DRIVER_ALIGNED_START_H_
