#include "tools/verify/injected_fault.h"

namespace kcoll {
namespace verify {
namespace {

InjectedFault& Installed() {
  static InjectedFault* fault = new InjectedFault();
  return *fault;
}

}  // namespace

const InjectedFault& Fault() { return Installed(); }
void InstallFault(const InjectedFault& fault) { Installed() = fault; }

}  // namespace verify
}  // namespace kcoll
