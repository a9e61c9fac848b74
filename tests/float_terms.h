// Floating-point test terms in every kcoll floating type: the rounding-sensitive values of
// bench/data/rounding_data.h narrowed to T, and T's DataType.
#ifndef KCOLL_TESTS_FLOAT_TERMS_H_
#define KCOLL_TESTS_FLOAT_TERMS_H_

#include <cstddef>
#include <type_traits>
#include <vector>

#include "base/half.h"
#include "base/types.h"
#include "bench/data/rounding_data.h"

namespace kcoll {
namespace testing {

template <class T>
T NarrowTo(double x) {
  if constexpr (std::is_same_v<T, Float16>) {
    return ToFloat16(static_cast<float>(x));
  } else if constexpr (std::is_same_v<T, Bfloat16>) {
    return ToBfloat16(static_cast<float>(x));
  } else {
    return static_cast<T>(x);
  }
}

// The blocks of a ReduceScatterV test on `n` ranks: of different sizes around count / 2, rank 1's empty; `start` is
// rank `me`'s offset in the whole, `total` the whole.
struct UnevenBlocks {
  std::vector<size_t> counts;
  size_t start = 0, total = 0;
};
inline UnevenBlocks UnevenBlocksOf(size_t count, int n, int me) {
  UnevenBlocks b;
  for (int j = 0; j < n; ++j) {
    b.counts.push_back(j == 1 ? 0 : count / 2 + 3 * static_cast<size_t>(j));
    if (j < me) b.start += b.counts.back();
    b.total += b.counts.back();
  }
  return b;
}

template <class T>
DataType FloatTypeOf() {
  if constexpr (std::is_same_v<T, Float16>) {
    return DataType::kFloat16;
  } else if constexpr (std::is_same_v<T, Bfloat16>) {
    return DataType::kBfloat16;
  } else if constexpr (std::is_same_v<T, float>) {
    return DataType::kFloat32;
  } else {
    return DataType::kFloat64;
  }
}

// Element i of rank r of n, in T's span.
template <class T>
double TermOf(int r, size_t i, int n) {
  return bench::RoundingSensitiveValue(r, i, n, bench::RoundingSpan(FloatTypeOf<T>()));
}

// Rank r's `count` terms, narrowed to T.
template <class T>
std::vector<T> TermsOf(int r, size_t count, int n) {
  std::vector<T> v(count);
  for (size_t i = 0; i < count; ++i) v[i] = NarrowTo<T>(TermOf<T>(r, i, n));
  return v;
}

}  // namespace testing
}  // namespace kcoll

#endif  // KCOLL_TESTS_FLOAT_TERMS_H_
