// Waiting politely for something another agent (a GPU, a peer) will finish: yield for the first rounds so that a
// short wait costs microseconds, then sleep for doubling intervals up to a millisecond so a long wait does not take a
// core from the ranks sharing it.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_BACKOFF_H_
#define KCOLL_COLLECTIVES_TRANSPORT_BACKOFF_H_

#include <thread>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace kcoll {

class Backoff {
 public:
  void Pause() {
    if (rounds_ < kYieldRounds) {
      ++rounds_;
      std::this_thread::yield();
      return;
    }
    absl::SleepFor(sleep_);
    if (sleep_ < absl::Milliseconds(1)) sleep_ *= 2;
  }
  // Progress was made: the next wait starts fast again.
  void Reset() {
    rounds_ = 0;
    sleep_ = absl::Microseconds(10);
  }

 private:
  static constexpr int kYieldRounds = 1000;
  int rounds_ = 0;
  absl::Duration sleep_ = absl::Microseconds(10);
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_BACKOFF_H_
