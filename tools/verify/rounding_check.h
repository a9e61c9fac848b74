// What a reduction of rounding-sensitive data (bench/data/rounding_data.h: wide exponents, cancelling large terms)
// must give under each numerics mode, element by element, for the reducing collectives:
//
//   fast           sum, avg: within the error bound of some order of its m terms, against the terms summed in long
//                  double: |got - s| <= (m - 1) u sum|x| + u |s| (+ u |s/m| for avg), u the type's unit roundoff;
//                  min, max: bit for bit (every order gives them); prod: not checked here (exact data checks it)
//   deterministic  bit for bit the rank-order fold of docs/numerics.md, written out here on its own: 16-bit types
//                  accumulate in float and round once; avg divides the rounded sum once
//   exact          sum, avg: bit for bit the exact sum of collectives/kernels/exact_sum.h (its arithmetic is checked
//                  against a big-integer reference by //tests:exact_sum_test) over the window of all n ranks' terms;
//                  other ops as deterministic
#ifndef KCOLL_TOOLS_VERIFY_ROUNDING_CHECK_H_
#define KCOLL_TOOLS_VERIFY_ROUNDING_CHECK_H_

#include <cstddef>
#include <optional>

#include "base/types.h"
#include "bench/data/exact_data.h"
#include "collectives/options.h"

namespace kcoll {
namespace verify {

struct RoundingMismatch {
  size_t index = 0;
  double expected = 0;  // the reference (fast: in long double, rounded to double for printing)
  double got = 0;
  double bound = 0;  // fast's allowed error; 0 where the mode promises the bits
};

// Whether CheckRounding tests `op` under `numerics` (not fast prod).
bool RoundingChecked(ReduceOp op, Numerics numerics);

// The first element of this rank's result (spec.rank) that breaks the mode's promise; empty when none does or the
// rank holds no result. spec: a reducing collective of a floating-point type, every rank's data filled by
// bench::FillRoundingSensitive.
std::optional<RoundingMismatch> CheckRounding(const bench::CheckSpec& spec, Numerics numerics, const void* result);

}  // namespace verify
}  // namespace kcoll

#endif  // KCOLL_TOOLS_VERIFY_ROUNDING_CHECK_H_
