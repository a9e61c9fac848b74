// The list of sizes a sweep visits (-b min, -e max, stepping by -f factor or -i bytes); sizes are parsed and
// formatted by base/byte_size.h.
#ifndef KCOLL_BENCH_OPTIONS_SIZES_H_
#define KCOLL_BENCH_OPTIONS_SIZES_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/byte_size.h"

namespace kcoll {
namespace bench {

// Sizes from min_bytes to max_bytes inclusive (as long as the step does not overshoot): multiplying by step_factor
// when it is > 1, else adding step_bytes. InvalidArgument when min > max, when the step cannot advance (factor <= 1
// and step_bytes == 0, or factor > 1 from 0 bytes), or when the list would exceed max_count sizes.
absl::StatusOr<std::vector<size_t>> MakeSizeList(size_t min_bytes, size_t max_bytes, size_t step_factor,
                                                 size_t step_bytes, size_t max_count = 100000);

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_OPTIONS_SIZES_H_
