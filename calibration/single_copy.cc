#include "calibration/single_copy.h"

#include <cstdint>

namespace kcoll {
namespace calibration {

int64_t ChooseSingleCopyThreshold(const Series& slots, const Series& single_copy) {
  int64_t threshold = 0;
  // From the largest size down, while single copy keeps winning.
  for (size_t i = slots.samples.size(); i-- > 0;) {
    if (i >= single_copy.samples.size()) return 0;
    const double slots_seconds = slots.samples[i].seconds;
    const double single_seconds = single_copy.samples[i].seconds;
    if (!(slots_seconds > 0 && single_seconds > 0 && single_seconds <= kSingleCopyMargin * slots_seconds)) break;
    threshold = static_cast<int64_t>(slots.samples[i].bytes);
  }
  return threshold;
}

}  // namespace calibration
}  // namespace kcoll
