// Reading kcoll's environment variables: an unset variable and an empty one mean the same (not set).
#ifndef KCOLL_COLLECTIVES_ENV_H_
#define KCOLL_COLLECTIVES_ENV_H_

#include <cstdlib>

namespace kcoll {

// The variable's value, or nullptr when it is unset or empty.
inline const char* GetEnv(const char* name) {
  const char* v = std::getenv(name);
  return (v != nullptr && *v != '\0') ? v : nullptr;
}

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ENV_H_
