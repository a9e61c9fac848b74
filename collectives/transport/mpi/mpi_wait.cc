#include "collectives/transport/mpi/mpi_wait.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"

namespace kcoll {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kSpinPolls = 256;                             // MPI_Testall polls before the clock is read
constexpr auto kSpinFor = std::chrono::milliseconds(1);     // back-to-back polls
constexpr auto kYieldFor = std::chrono::milliseconds(100);  // then polls that yield the core; then sleeps
constexpr auto kSleep = std::chrono::microseconds(100);
// Polls further apart than this mean the rank was not running (stopped, or descheduled on a loaded machine): the
// transfers may have completed meanwhile, so it polls for kResumeGrace before it may call the wait timed out.
constexpr auto kDescheduled = std::chrono::milliseconds(50);
constexpr auto kResumeGrace = std::chrono::milliseconds(20);

}  // namespace

absl::Status FinalizeBarrier(MPI_Comm comm, absl::Duration timeout, std::vector<int>* scratch) {
  MPI_Request barrier = MPI_REQUEST_NULL;
  if (const int rc = MPI_Ibarrier(comm, &barrier); rc != MPI_SUCCESS) {
    return absl::InternalError(absl::StrCat("MPI_Ibarrier failed: ", MpiErrorString(rc)));
  }
  absl::StatusOr<bool> done = WaitForRequests(&barrier, 1, timeout, scratch);
  if (!done.ok()) return done.status();
  if (!*done) {
    return absl::DeadlineExceededError(absl::StrCat("not every rank finalized within ", absl::FormatDuration(timeout)));
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> BroadcastWithin(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
                                     absl::Duration timeout, std::vector<int>* scratch) {
  MPI_Request request = MPI_REQUEST_NULL;
  if (const int rc = MPI_Ibcast(buffer, count, type, root, comm, &request); rc != MPI_SUCCESS) {
    return absl::InternalError(absl::StrCat("MPI_Ibcast failed: ", MpiErrorString(rc)));
  }
  return WaitForRequests(&request, 1, timeout, scratch);
}

std::string MpiErrorString(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return absl::StrCat("MPI error ", code);
  return std::string(text, length);
}

absl::StatusOr<bool> WaitForRequests(MPI_Request* requests, int count, absl::Duration timeout,
                                     std::vector<int>* scratch,
                                     const std::function<absl::StatusOr<bool>()>& also_progress) {
  if (count == 0) return true;
  // The other transport's progress, if any: true when it moved something.
  auto other = [&]() -> absl::StatusOr<bool> { return also_progress ? also_progress() : false; };
  if (timeout == absl::InfiniteDuration() && !also_progress) {
    const int code = MPI_Waitall(count, requests, MPI_STATUSES_IGNORE);
    if (code != MPI_SUCCESS) return absl::InternalError(absl::StrCat("MPI_Waitall failed: ", MpiErrorString(code)));
    return true;
  }
  // Spin first with MPI_Testall, as cheap per poll as MPI_Waitall's own loop: a short wait (the common case) costs
  // what a plain wait does. MPI_Testall does not say which requests completed, so the idle time is then tracked with
  // MPI_Testsome (about twice as expensive a poll, which no longer matters).
  for (int poll = 0; poll < kSpinPolls; ++poll) {
    int flag = 0;
    const int code = MPI_Testall(count, requests, &flag, MPI_STATUSES_IGNORE);
    if (code != MPI_SUCCESS) return absl::InternalError(absl::StrCat("MPI_Testall failed: ", MpiErrorString(code)));
    if (flag) return true;
    absl::StatusOr<bool> moved = other();
    if (!moved.ok()) return moved.status();
  }
  const auto limit = absl::ToChronoNanoseconds(timeout);
  if (static_cast<int>(scratch->size()) < count) scratch->resize(count);
  Clock::time_point last_progress = Clock::now(), last_poll = last_progress;
  for (;;) {
    int done = 0;
    const int code = MPI_Testsome(count, requests, &done, scratch->data(), MPI_STATUSES_IGNORE);
    if (code != MPI_SUCCESS) return absl::InternalError(absl::StrCat("MPI_Testsome failed: ", MpiErrorString(code)));
    if (done == MPI_UNDEFINED) return true;  // no active request left
    absl::StatusOr<bool> moved = other();
    if (!moved.ok()) return moved.status();
    const Clock::time_point now = Clock::now();
    if (timeout != absl::InfiniteDuration() && now - last_poll > kDescheduled) {
      last_progress = std::max(last_progress, now - limit + kResumeGrace);
    }
    last_poll = now;
    if (done > 0 || *moved) {
      last_progress = now;
      continue;
    }
    const auto idle = now - last_progress;
    if (timeout != absl::InfiniteDuration() && idle >= limit) return false;
    if (idle >= kYieldFor) {
      std::this_thread::sleep_for(kSleep);
    } else if (idle >= kSpinFor) {
      std::this_thread::yield();
    }
  }
}

}  // namespace kcoll
