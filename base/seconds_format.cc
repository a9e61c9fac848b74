#include "base/seconds_format.h"

#include <cmath>

#include "absl/strings/str_format.h"

namespace kcoll {

std::string FormatSeconds(double seconds) {
  const double a = std::abs(seconds);
  if (a == 0) return "0 s";
  if (a >= 1) return absl::StrFormat("%.4g s", seconds);
  if (a >= 1e-3) return absl::StrFormat("%.4g ms", seconds * 1e3);
  if (a >= 1e-6) return absl::StrFormat("%.4g us", seconds * 1e6);
  return absl::StrFormat("%.4g ns", seconds * 1e9);
}

}  // namespace kcoll
