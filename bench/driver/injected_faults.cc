#include "bench/driver/injected_faults.h"

namespace kcoll {
namespace bench {
namespace {

InjectedFaults& Installed() {
  static InjectedFaults faults;
  return faults;
}

}  // namespace

const InjectedFaults& Faults() { return Installed(); }

void InstallFaults(const InjectedFaults& faults) { Installed() = faults; }

}  // namespace bench
}  // namespace kcoll
