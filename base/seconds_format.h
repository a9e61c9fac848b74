// Durations for people to read, in the unit that suits them: "2.5 s", "20.32 ms", "1.5 us", "3 ns" (four
// significant digits). The one formatter of kcoll's reports and logs.
#ifndef KCOLL_BASE_SECONDS_FORMAT_H_
#define KCOLL_BASE_SECONDS_FORMAT_H_

#include <string>

namespace kcoll {

std::string FormatSeconds(double seconds);

}  // namespace kcoll

#endif  // KCOLL_BASE_SECONDS_FORMAT_H_
