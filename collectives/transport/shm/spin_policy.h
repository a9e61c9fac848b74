// How a rank waits for a peer on the same node: spin on the shared cache line while every rank has a core of its
// own (the peer answers within a microsecond), give the core away at once when ranks outnumber cores (the peer may
// need this very core to answer).
#ifndef KCOLL_COLLECTIVES_TRANSPORT_SHM_SPIN_POLICY_H_
#define KCOLL_COLLECTIVES_TRANSPORT_SHM_SPIN_POLICY_H_

#include <mpi.h>
#include <sched.h>

#include <chrono>
#include <thread>

#include "absl/time/time.h"

namespace kcoll {
namespace shm {

// Tells the core this is a spin-wait loop (x86's pause); nothing elsewhere.
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// The pace of a wait that polls shared memory: Idle() after each poll that found nothing new spins `spin_polls`
// times, then yields the core, then sleeps 50 us between polls once nothing has moved for 100 ms, and returns false
// once nothing has moved for `timeout`; Moved() after a poll that found progress starts over.
class IdlePacer {
 public:
  IdlePacer(int spin_polls, absl::Duration timeout) : spin_polls_(spin_polls), timeout_(timeout) {}
  void Moved() {
    idle_ = 0;
    timing_ = false;
  }
  bool Idle() {
    if (++idle_ < spin_polls_) {
      CpuRelax();
      return true;
    }
    const auto now = std::chrono::steady_clock::now();
    if (!timing_) {
      timing_ = true;
      last_progress_ = now;
    }
    const auto still = now - last_progress_;
    if (timeout_ != absl::InfiniteDuration() && still > absl::ToChronoNanoseconds(timeout_)) return false;
    if (still < std::chrono::milliseconds(100)) {
      sched_yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    return true;
  }

 private:
  int spin_polls_;
  absl::Duration timeout_;
  int idle_ = 0;
  bool timing_ = false;
  std::chrono::steady_clock::time_point last_progress_{};
};

// The cores the ranks of `comm` may run on together: the union of their affinity masks (ranks bound to one core each
// still have a core each). Collective over `comm`. Ranks that outnumber these cores take turns on them.
int CoresAvailable(MPI_Comm comm);

// Polls without progress before a waiting rank starts yielding: `requested` if positive, else many when `ranks` have
// at least a core each among `cores`, else one.
int SpinPollsFor(int ranks, int cores, int requested);

// SpinPollsFor the ranks of `comm` and the cores they have together (CoresAvailable). Collective over `comm`.
int ChooseSpinPolls(MPI_Comm comm, int requested);

// ChooseSpinPolls over the ranks of `comm` that share this machine (MPI_COMM_TYPE_SHARED), whichever node they are
// in: ranks of emulated nodes (KCOLL_RANKS_PER_NODE) share the cores of one machine, and a node whose two ranks see
// two cores must still not spin while the other nodes' ranks need those cores. Collective over `comm`.
int ChooseHostSpinPolls(MPI_Comm comm, int requested);

}  // namespace shm
}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_SHM_SPIN_POLICY_H_
