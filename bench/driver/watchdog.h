// The -T timeout of the benchmarks: a thread that ends the job when no call has finished for too long.
#ifndef KCOLL_BENCH_DRIVER_WATCHDOG_H_
#define KCOLL_BENCH_DRIVER_WATCHDOG_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace kcoll {
namespace bench {

// Aborts the job when no call has finished for `timeout_s` seconds (-T): prints which case hung and exits, which
// makes mpirun end the other ranks.
class Watchdog {
 public:
  Watchdog(int timeout_s, int rank);
  ~Watchdog();
  void Arm(const std::string& what);
  // Called after every call: a count the benchmark's thread alone writes, with plain loads and stores, and the
  // watchdog reads every 50 ms. No clock read and no locked instruction, which the floor of an 8-byte call would feel.
  void Beat() { beats_.store(beats_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }
  void Disarm();

 private:
  void Loop();
  int timeout_s_;
  int rank_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> armed_{false};
  std::atomic<uint64_t> beats_{0};
  std::mutex what_mutex_;  // what_ is written by the benchmark's thread and read by the watchdog's
  std::string what_;
  std::thread thread_;
};

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_DRIVER_WATCHDOG_H_
