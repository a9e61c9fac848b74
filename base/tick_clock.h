// Cheap timestamps for the per-call time counters: the CPU's time-stamp counter where it runs at a constant rate
// (x86 with an invariant TSC), else steady_clock. Reading the counter costs a fraction of a steady_clock read, which
// matters for calls that take a fraction of a microsecond.
#ifndef KCOLL_BASE_TICK_CLOCK_H_
#define KCOLL_BASE_TICK_CLOCK_H_

#include <chrono>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace kcoll {

class TickClock {
 public:
  // Measures the counter's rate against steady_clock (about 2 ms, once per process) unless already done.
  TickClock();

  uint64_t Now() const {
#if defined(__x86_64__) || defined(__i386__)
    if (tsc_) return __rdtsc();
#endif
    return static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  }
  double Seconds(uint64_t ticks) const { return static_cast<double>(ticks) * seconds_per_tick_; }
  bool uses_tsc() const { return tsc_; }

 private:
  bool tsc_ = false;
  double seconds_per_tick_ = 0;
};

}  // namespace kcoll

#endif  // KCOLL_BASE_TICK_CLOCK_H_
