// Reading kcoll's environment variables: an unset variable and an empty one mean the same (not set).
#ifndef KCOLL_BASE_ENV_H_
#define KCOLL_BASE_ENV_H_

#include <cstdlib>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kcoll {

// The variable's value, or nullptr when it is unset or empty.
inline const char* GetEnv(const char* name) {
  const char* v = std::getenv(name);
  return (v != nullptr && *v != '\0') ? v : nullptr;
}

// "1", "true", "yes", "on" / "0", "false", "no", "off" (case-insensitive); InvalidArgument naming `source` otherwise.
absl::StatusOr<bool> ParseFlag(absl::string_view text, absl::string_view source);

}  // namespace kcoll

#endif  // KCOLL_BASE_ENV_H_
