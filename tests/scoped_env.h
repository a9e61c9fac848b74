// Sets an environment variable for a scope, on this process only, and restores what was there before.
#ifndef KCOLL_TESTS_SCOPED_ENV_H_
#define KCOLL_TESTS_SCOPED_ENV_H_

#include <cstdlib>
#include <optional>
#include <string>

namespace kcoll {
namespace testing {

class ScopedEnv {
 public:
  // A null `value` unsets the variable for the scope.
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ScopedEnv(const char* name, const std::string& value) : ScopedEnv(name, value.c_str()) {}
  ~ScopedEnv() {
    if (old_.has_value()) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace testing
}  // namespace kcoll

#endif  // KCOLL_TESTS_SCOPED_ENV_H_
