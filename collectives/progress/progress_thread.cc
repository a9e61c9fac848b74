#include "collectives/progress/progress_thread.h"

#include <sched.h>

#include <chrono>
#include <utility>

namespace kcoll {
namespace {

thread_local bool running_a_call = false;

// How long the progress thread polls for the next call before it sleeps, and a waiting thread polls before it
// sleeps: far above an 8-byte collective's time, far below a scheduler tick.
constexpr auto kPollBeforeSleep = std::chrono::microseconds(100);

}  // namespace

// A call the progress thread (or a helping waiter) runs: the runner sets the result, then publishes `done`
// (release); a waiter reads `done` (acquire), then the result.
class ThreadRequest final : public RequestState {
 public:
  explicit ThreadRequest(ProgressThread* thread) : thread_(thread) {}
  absl::Status Wait() override {
    // The progress thread outlives every request that is not done: the communicator drains before it ends it.
    if (!done()) thread_->WaitUntil([this] { return done(); });
    return result_;
  }
  absl::StatusOr<bool> Test() override { return done(); }

  bool done() const { return done_.load(std::memory_order_acquire); }
  void Complete(absl::Status result) {
    result_ = std::move(result);
    done_.store(true, std::memory_order_release);
  }

 private:
  ProgressThread* thread_;
  std::atomic<bool> done_{false};
  absl::Status result_;
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

bool ProgressThread::RunningACall() { return running_a_call; }

std::shared_ptr<RequestState> ProgressThread::Submit(std::function<absl::Status()> call) {
  auto request = std::make_shared<ThreadRequest>(this);
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
  if (running_a_call) return;
  const uint64_t target = submitted_.load(std::memory_order_relaxed);
  WaitUntil([&] { return completed_.load(std::memory_order_acquire) >= target; });
}

template <class Done>
void ProgressThread::WaitUntil(Done done) {
  const auto poll_until = std::chrono::steady_clock::now() + kPollBeforeSleep;
  while (!done()) {
    if (RunNextIfIdle()) continue;
    if (std::chrono::steady_clock::now() < poll_until) {
      sched_yield();  // the progress thread may need this very core
      continue;
    }
    std::unique_lock<std::mutex> lock(mu_);
    // Woken when a call completes; the timeout bounds a wake-up missed between the check and the wait.
    done_.wait_for(lock, std::chrono::milliseconds(1));
  }
}

bool ProgressThread::RunNextIfIdle() {
  Item item;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (running_ || queue_.empty()) return false;
    item = std::move(queue_.front());
    queue_.pop_front();
    running_ = true;
  }
  RunItem(item);
  return true;
}

void ProgressThread::RunItem(Item& item) {
  running_a_call = true;
  absl::Status result = item.call();
  running_a_call = false;
  item.request->Complete(std::move(result));
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    running_ = false;
    completed_.fetch_add(1, std::memory_order_release);
    wake = sleeping_ && !queue_.empty();  // a waiter ran this one; the progress thread takes the next
  }
  done_.notify_all();
  if (wake) work_.notify_one();
}

void ProgressThread::Loop() {
  for (;;) {
    // Poll without the lock first: the next call usually follows within microseconds.
    const auto poll_until = std::chrono::steady_clock::now() + kPollBeforeSleep;
    while (completed_.load(std::memory_order_relaxed) == submitted_.load(std::memory_order_relaxed) &&
           std::chrono::steady_clock::now() < poll_until) {
      sched_yield();
    }
    if (RunNextIfIdle()) continue;
    std::unique_lock<std::mutex> lock(mu_);
    if (stop_ && queue_.empty() && !running_) return;
    // Sleeps until a call is queued (or a helping waiter finished one, when more are queued).
    sleeping_ = true;
    work_.wait_for(lock, std::chrono::milliseconds(10), [this] { return stop_ || (!queue_.empty() && !running_); });
    sleeping_ = false;
  }
}

}  // namespace kcoll
