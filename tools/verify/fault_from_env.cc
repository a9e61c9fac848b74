// Test-only: installs the fault KCOLL_VERIFY_INJECT_WRONG names when the program starts (linked into
// //tools/verify:verify_with_fault only). See injected_fault.h.
#include "base/env.h"
#include "tools/verify/injected_fault.h"

namespace kcoll {
namespace verify {
namespace {

const bool kInstalled = [] {
  InjectedFault fault;
  if (const char* row = GetEnv("KCOLL_VERIFY_INJECT_WRONG")) fault.wrong_row = row;
  InstallFault(fault);
  return true;
}();

}  // namespace
}  // namespace verify
}  // namespace kcoll
