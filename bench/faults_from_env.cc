// Test-only: installs the faults named by the environment when the program starts (linked into
// //bench:all_reduce_with_faults only). KCOLL_BENCH_INJECT_PROBE_SCALE=X, KCOLL_BENCH_INJECT_CALIBRATION=FILE,
// KCOLL_BENCH_INJECT_HANG=1, KCOLL_BENCH_INJECT_WRONG=1: see InjectedFaults.
#include <cstdlib>

#include "bench/injected_faults.h"

namespace kcoll {
namespace bench {
namespace {

const char* Env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

const bool kInstalled = [] {
  InjectedFaults faults;
  if (const char* scale = Env("KCOLL_BENCH_INJECT_PROBE_SCALE")) faults.probe_scale = std::atof(scale);
  if (const char* path = Env("KCOLL_BENCH_INJECT_CALIBRATION")) faults.calibration = path;
  faults.hang = Env("KCOLL_BENCH_INJECT_HANG") != nullptr;
  faults.wrong = Env("KCOLL_BENCH_INJECT_WRONG") != nullptr;
  InstallFaults(faults);
  return true;
}();

}  // namespace
}  // namespace bench
}  // namespace kcoll
