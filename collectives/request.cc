#include "collectives/request.h"

#include <sched.h>

#include <utility>

namespace kcoll {
namespace {

class DoneRequest final : public RequestState {
 public:
  explicit DoneRequest(absl::Status result) : result_(std::move(result)) {}
  absl::Status Wait() override { return result_; }
  absl::StatusOr<bool> Test() override { return true; }

 private:
  absl::Status result_;
};

}  // namespace

Request CompletedRequest(absl::Status result) { return Request(std::make_shared<DoneRequest>(std::move(result))); }

absl::Status WaitAll(absl::Span<Request> requests) {
  absl::Status first;
  for (Request& request : requests) {
    absl::Status status = request.Wait();
    if (first.ok() && !status.ok()) first = status;
  }
  return first;
}

absl::Status WaitAny(absl::Span<Request> requests, size_t* index) {
  for (;;) {
    bool any = false;
    for (size_t i = 0; i < requests.size(); ++i) {
      if (requests[i].null()) continue;
      any = true;
      absl::StatusOr<bool> done = requests[i].Test();
      if (!done.ok() || *done) {
        *index = i;
        absl::Status status = done.ok() ? requests[i].Wait() : done.status();
        requests[i] = Request();
        return status;
      }
    }
    if (!any) {
      *index = requests.size();
      return absl::OkStatus();
    }
    sched_yield();
  }
}

}  // namespace kcoll
