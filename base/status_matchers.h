// GoogleTest matchers of absl::Status, for the tests of every layer.
#ifndef KCOLL_BASE_STATUS_MATCHERS_H_
#define KCOLL_BASE_STATUS_MATCHERS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"

namespace kcoll {

inline absl::Status StatusOf(const absl::Status& s) { return s; }
template <typename T>
absl::Status StatusOf(const absl::StatusOr<T>& s) {
  return s.status();
}

// Matches an absl::Status (or StatusOr) that is InvalidArgument with `substring` in its message.
MATCHER_P(IsInvalidArgument, substring, "is InvalidArgument mentioning \"" + std::string(substring) + "\"") {
  const absl::Status status = StatusOf(arg);
  *result_listener << "status is " << status.ToString();
  return status.code() == absl::StatusCode::kInvalidArgument &&
         status.message().find(substring) != absl::string_view::npos;
}

}  // namespace kcoll

#endif  // KCOLL_BASE_STATUS_MATCHERS_H_
