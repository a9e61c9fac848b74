// The progress thread of a communicator: runs its nonblocking calls, one after another in the order they were
// issued, while the application computes. Each call is the blocking collective itself, run on this thread, so a
// nonblocking call validates, agrees, times out and counts exactly as its blocking form does.
//
// The thread starts with the first nonblocking call. After a call it keeps polling for the next one for a short
// while (a solver issues its next reduction within microseconds), then sleeps until one is issued. The application's
// thread hands calls over (Submit) and, before anything else touches the communicator (a blocking call, Split,
// counters, Finalize), waits until the thread has nothing left (Drain): the communicator's state then belongs to one
// thread at a time, and blocking and nonblocking calls keep the order in which they were issued.
#ifndef KCOLL_COLLECTIVES_PROGRESS_PROGRESS_THREAD_H_
#define KCOLL_COLLECTIVES_PROGRESS_PROGRESS_THREAD_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "absl/status/status.h"
#include "collectives/request.h"

namespace kcoll {

class ThreadRequest;

class ProgressThread {
 public:
  ProgressThread();
  // Completes every call handed over, then ends the thread.
  ~ProgressThread();
  ProgressThread(const ProgressThread&) = delete;
  ProgressThread& operator=(const ProgressThread&) = delete;

  // Queues `call` behind the calls handed over before it; the request completes with its result.
  std::shared_ptr<RequestState> Submit(std::function<absl::Status()> call);
  // Returns once every call handed over so far has completed. A no-op on the progress thread itself (a call it runs
  // reaches the communicator's entry points, which drain first).
  void Drain();
  // Whether the calling thread is a progress thread.
  static bool OnProgressThread();

 private:
  struct Item {
    std::function<absl::Status()> call;
    std::shared_ptr<ThreadRequest> request;
  };
  void Loop();

  std::mutex mu_;
  std::condition_variable work_;  // the thread sleeps on it when idle
  std::condition_variable done_;  // Drain sleeps on it after spinning
  std::deque<Item> queue_;
  bool stop_ = false;
  bool sleeping_ = false;
  std::atomic<uint64_t> submitted_{0};
  std::atomic<uint64_t> completed_{0};
  std::thread thread_;
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_PROGRESS_PROGRESS_THREAD_H_
