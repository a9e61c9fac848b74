#include "bench/options/sizes.h"

#include <cmath>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace kcoll {
namespace bench {

absl::StatusOr<std::vector<size_t>> MakeSizeList(size_t min_bytes, size_t max_bytes, size_t step_factor,
                                                 size_t step_bytes, size_t max_count) {
  if (min_bytes > max_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("minimum size ", min_bytes, " B (-b) is larger than maximum size ", max_bytes, " B (-e)"));
  }
  const bool by_factor = step_factor > 1;
  if (!by_factor && step_bytes == 0) {
    return absl::InvalidArgumentError("the size step cannot advance: give -f > 1 or -i > 0");
  }
  if (by_factor && min_bytes == 0 && max_bytes > 0) {
    return absl::InvalidArgumentError("-b 0 with -f: multiplying 0 never grows; start at -b 1 or more, or use -i");
  }
  std::vector<size_t> sizes;
  size_t size = min_bytes;
  while (true) {
    sizes.push_back(size);
    if (sizes.size() > max_count) {
      return absl::InvalidArgumentError(absl::StrCat("the size list from ", min_bytes, " to ", max_bytes,
                                                     " B has more than ", max_count, " sizes: use a larger step"));
    }
    if (size == max_bytes) break;
    size_t next;
    if (by_factor) {
      if (size > max_bytes / step_factor) break;  // the next one would pass max (or overflow)
      next = size * step_factor;
    } else {
      if (max_bytes - size < step_bytes) break;
      next = size + step_bytes;
    }
    if (next > max_bytes) break;
    size = next;
  }
  return sizes;
}

}  // namespace bench
}  // namespace kcoll
