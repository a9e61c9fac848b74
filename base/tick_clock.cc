#include "base/tick_clock.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace kcoll {
namespace {

struct Calibration {
  bool tsc = false;
  double seconds_per_tick = 0;
};

bool InvariantTsc() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) == 0 || eax < 0x80000007u) return false;
  if (__get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (edx & (1u << 8)) != 0;  // "TscInvariant": constant rate in every P-, C- and T-state
#else
  return false;
#endif
}

Calibration Calibrate() {
  Calibration c;
  using Clock = std::chrono::steady_clock;
  c.seconds_per_tick = std::chrono::duration<double>(Clock::duration(1)).count();
#if defined(__x86_64__) || defined(__i386__)
  if (!InvariantTsc()) return c;
  const Clock::time_point start = Clock::now();
  const uint64_t first = __rdtsc();
  Clock::time_point now = start;
  while (now - start < std::chrono::milliseconds(2)) now = Clock::now();
  const uint64_t last = __rdtsc();
  if (last <= first) return c;
  c.tsc = true;
  c.seconds_per_tick = std::chrono::duration<double>(now - start).count() / static_cast<double>(last - first);
#endif
  return c;
}

}  // namespace

TickClock::TickClock() {
  static const Calibration calibration = Calibrate();
  tsc_ = calibration.tsc;
  seconds_per_tick_ = calibration.seconds_per_tick;
}

}  // namespace kcoll
