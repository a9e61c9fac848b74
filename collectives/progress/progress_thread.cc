#include "collectives/progress/progress_thread.h"

#include <sched.h>

#include <chrono>
#include <utility>

namespace kcoll {
namespace {

thread_local bool on_progress_thread = false;

// How long the thread polls for the next call before it sleeps, and how long a waiting application thread polls
// before it sleeps: both far above an 8-byte collective's time, far below a scheduler tick.
constexpr auto kPollBeforeSleep = std::chrono::microseconds(200);

inline void Relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

// A call the progress thread runs: the thread sets the result, then publishes `done` (release); the application
// reads `done` (acquire), then the result.
class ThreadRequest final : public RequestState {
 public:
  absl::Status Wait() override {
    if (done_.load(std::memory_order_acquire)) return result_;
    const auto poll_until = std::chrono::steady_clock::now() + kPollBeforeSleep;
    int polls = 0;
    while (!done_.load(std::memory_order_acquire)) {
      if (++polls < 64 || std::chrono::steady_clock::now() < poll_until) {
        Relax();
        continue;
      }
      std::unique_lock<std::mutex> lock(mu_);
      waiting_ = true;
      cv_.wait(lock, [this] { return done_.load(std::memory_order_acquire); });
    }
    return result_;
  }
  absl::StatusOr<bool> Test() override { return done_.load(std::memory_order_acquire); }

  void Complete(absl::Status result) {
    result_ = std::move(result);
    std::lock_guard<std::mutex> lock(mu_);
    done_.store(true, std::memory_order_release);
    if (waiting_) cv_.notify_all();
  }

 private:
  std::atomic<bool> done_{false};
  absl::Status result_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool waiting_ = false;
};

ProgressThread::ProgressThread() : thread_([this] { Loop(); }) {}

ProgressThread::~ProgressThread() {
  Drain();
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_.notify_all();
  thread_.join();
}

bool ProgressThread::OnProgressThread() { return on_progress_thread; }

std::shared_ptr<RequestState> ProgressThread::Submit(std::function<absl::Status()> call) {
  auto request = std::make_shared<ThreadRequest>();
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(Item{std::move(call), request});
    submitted_.fetch_add(1, std::memory_order_relaxed);
    wake = sleeping_;
  }
  if (wake) work_.notify_one();
  return request;
}

void ProgressThread::Drain() {
  if (on_progress_thread) return;
  const uint64_t target = submitted_.load(std::memory_order_relaxed);
  if (completed_.load(std::memory_order_acquire) >= target) return;
  const auto poll_until = std::chrono::steady_clock::now() + kPollBeforeSleep;
  while (completed_.load(std::memory_order_acquire) < target) {
    if (std::chrono::steady_clock::now() < poll_until) {
      Relax();
      continue;
    }
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait_for(lock, std::chrono::milliseconds(1),
                   [&] { return completed_.load(std::memory_order_acquire) >= target; });
  }
}

void ProgressThread::Loop() {
  on_progress_thread = true;
  for (;;) {
    Item item;
    {
      // Poll without the lock first: the next call usually follows within microseconds.
      const auto poll_until = std::chrono::steady_clock::now() + kPollBeforeSleep;
      while (completed_.load(std::memory_order_relaxed) == submitted_.load(std::memory_order_relaxed) &&
             std::chrono::steady_clock::now() < poll_until) {
        sched_yield();
      }
      std::unique_lock<std::mutex> lock(mu_);
      sleeping_ = true;
      work_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      sleeping_ = false;
      if (queue_.empty()) return;  // stop_, and nothing left
      item = std::move(queue_.front());
      queue_.pop_front();
    }
    item.request->Complete(item.call());
    {
      std::lock_guard<std::mutex> lock(mu_);
      completed_.fetch_add(1, std::memory_order_release);
    }
    done_.notify_all();
  }
}

}  // namespace kcoll
