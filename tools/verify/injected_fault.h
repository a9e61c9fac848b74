// A fault verify's own test injects (tools/verify/verify_test.sh), so that a failing cell is reported for real: after
// every call of the named row, one bit of rank 1's result (rank 0 on one rank) is flipped before it is checked. The
// verify binary installs none; the test-only //tools/verify:verify_with_fault installs it from
// KCOLL_VERIFY_INJECT_WRONG=ROW ("all_reduce/ring") before main.
#ifndef KCOLL_TOOLS_VERIFY_INJECTED_FAULT_H_
#define KCOLL_TOOLS_VERIFY_INJECTED_FAULT_H_

#include <string>

namespace kcoll {
namespace verify {

struct InjectedFault {
  std::string wrong_row;  // non-empty: this row's results are corrupted
};

const InjectedFault& Fault();
void InstallFault(const InjectedFault& fault);

}  // namespace verify
}  // namespace kcoll

#endif  // KCOLL_TOOLS_VERIFY_INJECTED_FAULT_H_
