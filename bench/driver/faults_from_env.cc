// Test-only: installs the faults named by the environment when the program starts (linked into
// //bench:all_reduce_with_faults only). KCOLL_BENCH_INJECT_PROBE_SCALE=X, KCOLL_BENCH_INJECT_CALIBRATION=FILE,
// KCOLL_BENCH_INJECT_HANG=1, KCOLL_BENCH_INJECT_WRONG=1: see InjectedFaults.
#include <cstdlib>

#include "base/env.h"
#include "bench/driver/injected_faults.h"

namespace kcoll {
namespace bench {
namespace {

const bool kInstalled = [] {
  InjectedFaults faults;
  if (const char* scale = GetEnv("KCOLL_BENCH_INJECT_PROBE_SCALE")) faults.probe_scale = std::atof(scale);
  if (const char* path = GetEnv("KCOLL_BENCH_INJECT_CALIBRATION")) faults.calibration = path;
  faults.hang = GetEnv("KCOLL_BENCH_INJECT_HANG") != nullptr;
  faults.wrong = GetEnv("KCOLL_BENCH_INJECT_WRONG") != nullptr;
  InstallFaults(faults);
  return true;
}();

}  // namespace
}  // namespace bench
}  // namespace kcoll
