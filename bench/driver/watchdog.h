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
  void Beat();
  void Disarm();

 private:
  void Loop();
  int timeout_s_;
  int rank_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> armed_{false};
  std::atomic<int64_t> last_beat_ns_{0};
  std::mutex what_mutex_;  // what_ is written by the benchmark's thread and read by the watchdog's
  std::string what_;
  std::thread thread_;
};

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_DRIVER_WATCHDOG_H_
