#include "bench/driver/watchdog.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

namespace kcoll {
namespace bench {
namespace {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Watchdog::Watchdog(int timeout_s, int rank) : timeout_s_(timeout_s), rank_(rank) {
  thread_ = std::thread([this] { Loop(); });
}

Watchdog::~Watchdog() {
  stop_ = true;
  thread_.join();
}

void Watchdog::Arm(const std::string& what) {
  Disarm();
  {
    std::lock_guard<std::mutex> lock(what_mutex_);
    what_ = what;
  }
  Beat();  // the watchdog's clock for this case starts when it sees the count move
  armed_ = true;
}

void Watchdog::Disarm() { armed_ = false; }

void Watchdog::Loop() {
  uint64_t seen = beats_.load(std::memory_order_relaxed);
  int64_t since_ns = NowNs();  // when `seen` changed last, or the watchdog was last seen disarmed
  while (!stop_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const uint64_t beats = beats_.load(std::memory_order_relaxed);
    const int64_t now_ns = NowNs();
    if (beats != seen || !armed_) {
      seen = beats;
      since_ns = now_ns;
      continue;
    }
    if (now_ns - since_ns > static_cast<int64_t>(timeout_s_) * 1000000000) {
      std::lock_guard<std::mutex> lock(what_mutex_);
      std::fprintf(stderr, "[rank %d] timeout (-T %d): no call finished for %d s in %s; aborting\n", rank_, timeout_s_,
                   timeout_s_, what_.c_str());
      std::fflush(stderr);
      _exit(124);
    }
  }
}

}  // namespace bench
}  // namespace kcoll
