// Faults the harness's own tests inject (bench/smoke_test.sh), so that its failure paths run for real: a hung rank,
// a wrong result, a machine that changed state. The benchmark binaries install none; the test-only binary
// //bench:all_reduce_with_faults links //bench/driver:faults_from_env, which installs them from KCOLL_BENCH_INJECT_*
// before main.
#ifndef KCOLL_BENCH_DRIVER_INJECTED_FAULTS_H_
#define KCOLL_BENCH_DRIVER_INJECTED_FAULTS_H_

#include <string>

namespace kcoll {
namespace bench {

struct InjectedFaults {
  double probe_scale = 0;   // > 0: every link probe reads this many times its measured time
  std::string calibration;  // non-empty: a recalibration takes this profile file instead of measuring one
  bool hang = false;        // rank 1 stops making progress before a case's first call
  bool wrong = false;       // one element of rank 0's checked result counts as wrong
};

// The faults installed (none unless a test binary installed some).
const InjectedFaults& Faults();
void InstallFaults(const InjectedFaults& faults);

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_DRIVER_INJECTED_FAULTS_H_
