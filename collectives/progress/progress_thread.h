// The progress thread of a communicator: runs its nonblocking calls, one after another in the order they were
// issued, while the application computes. Each call is the blocking collective itself, so a nonblocking call
// validates, agrees, times out and counts exactly as its blocking form does.
//
// The thread starts with the first nonblocking call. After a call it keeps polling for the next one for a short
// while (a solver issues its next reduction within microseconds), then sleeps until one is issued. An application
// thread that waits (Wait on a request, or Drain) does not only wait: when the next call is queued and the progress
// thread is not running one, the waiting thread runs it itself. A call issued and waited for at once then costs what
// the blocking call costs, with no hand-over between threads, and ranks that outnumber the cores cannot leave their
// calls queued behind a progress thread that gets no core. One call runs at a time, in issue order, whichever
// thread runs it.
//
// Before anything else touches the communicator (a blocking call, Split, counters, Finalize), the application's
// thread drains the queue (Drain): the communicator's state belongs to one thread at a time, and blocking and
// nonblocking calls keep the order in which they were issued.
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
  // Returns once every call handed over so far has completed, running queued ones itself when the progress thread
  // is not. A no-op on a thread that is running a call (the call reaches entry points that drain first).
  void Drain();
  // Whether every call handed over has completed.
  bool Idle() const { return completed_.load(std::memory_order_acquire) == submitted_.load(std::memory_order_relaxed); }
  // Whether the calling thread is running one of the calls.
  static bool RunningACall();

 private:
  friend class ThreadRequest;
  struct Item {
    std::function<absl::Status()> call;
    std::shared_ptr<ThreadRequest> request;
  };
  void Loop();
  // Runs the next queued call on this thread if no thread runs one; whether it ran one.
  bool RunNextIfIdle();
  void RunItem(Item& item);
  // Waits, helping, until `done` says so.
  template <class Done>
  void WaitUntil(Done done);

  std::mutex mu_;
  std::condition_variable work_;  // the progress thread sleeps on it when idle
  std::condition_variable done_;  // waiting threads sleep on it after polling
  std::deque<Item> queue_;
  bool running_ = false;  // some thread is running a call
  bool stop_ = false;
  bool sleeping_ = false;
  std::atomic<uint64_t> submitted_{0};
  std::atomic<uint64_t> completed_{0};
  std::thread thread_;
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_PROGRESS_PROGRESS_THREAD_H_
