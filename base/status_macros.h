// Early return on error, for schedules that are long sequences of fallible steps.
#ifndef KCOLL_BASE_STATUS_MACROS_H_
#define KCOLL_BASE_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define KCOLL_RETURN_IF_ERROR(expr)                \
  do {                                             \
    const ::absl::Status kcoll_status_ = (expr);   \
    if (!kcoll_status_.ok()) return kcoll_status_; \
  } while (false)

#define KCOLL_STATUS_CONCAT_INNER(a, b) a##b
#define KCOLL_STATUS_CONCAT(a, b) KCOLL_STATUS_CONCAT_INNER(a, b)

// KCOLL_ASSIGN_OR_RETURN(T var, expr): evaluates expr (an absl::StatusOr), returns its status on error, else
// declares `var` from its value.
#define KCOLL_ASSIGN_OR_RETURN(decl, expr) \
  KCOLL_ASSIGN_OR_RETURN_IMPL(KCOLL_STATUS_CONCAT(kcoll_statusor_, __LINE__), decl, expr)
#define KCOLL_ASSIGN_OR_RETURN_IMPL(tmp, decl, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return tmp.status();                \
  decl = std::move(tmp).value()

#endif  // KCOLL_BASE_STATUS_MACROS_H_
