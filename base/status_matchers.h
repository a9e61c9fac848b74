// GoogleTest matchers of absl::Status, and the value of a StatusOr a test expects to be OK, for the tests of every
// layer.
#ifndef KCOLL_BASE_STATUS_MATCHERS_H_
#define KCOLL_BASE_STATUS_MATCHERS_H_

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"

namespace kcoll {

// The value of a StatusOr the test expects to be OK; aborts the test binary with the status otherwise.
template <typename T>
T Unwrap(absl::StatusOr<T> value) {
  if (!value.ok()) {
    std::fprintf(stderr, "unexpected error: %s\n", value.status().ToString().c_str());
    std::abort();
  }
  return *std::move(value);
}

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
