#include "collectives/progress/stream_request.h"

namespace kcoll {

absl::Status StreamRequest::Wait() {
  if (result_.has_value()) return *result_;
  if (mark_ <= calls_->synchronized_through) {
    result_ = absl::OkStatus();
  } else if (!calls_->open()) {
    result_ = calls_->final_result;
  } else {
    result_ = calls_->synchronize();
  }
  return *result_;
}

absl::StatusOr<bool> StreamRequest::Test() {
  if (result_.has_value() || mark_ <= calls_->synchronized_through || !calls_->open()) return true;
  absl::StatusOr<bool> reached = calls_->reached(mark_);
  if (!reached.ok()) return reached.status();
  if (*reached) result_ = absl::OkStatus();
  return *reached;
}

}  // namespace kcoll
