// numerics=exact's arithmetic, per element (docs/numerics.md): a floating-point sum whose bits depend only on the
// multiset of its terms, not on their order, their grouping or how many ranks held them.
//
// Every term is cut along fixed binary positions into bins of kExactBinBits bits (bin b holds the bits of weight
// 2^(32 b - kExactBinBias) up to 2^(32 b + 31 - kExactBinBias)). An element's window is the K bins from the bin of its
// largest term's leading bit down; each term contributes its bits in those bins, each bin as one int64 ("limb"),
// and bits below the window are dropped (truncated towards zero, sign kept). Integer addition is exact and
// associative, so the limb sums, and the one correct rounding of their value to the element type at the end, are
// the same however the terms are grouped. Because the bins are fixed positions, a partial sum can move its window
// up by dropping whole bins, which is what dropping each term's bits would do: an accumulator that holds many
// terms per element (exact_accumulator.h) gives the same bits as one term per rank.
//
// What is kept: at least 64 bits below the largest term's leading bit for float64 (K = 3), 32 for 32- and 16-bit
// floats (K = 2), more than their significands; so a single term comes back unchanged, and the result is the
// correctly rounded sum of the terms truncated 64 (32) bits below the largest. A limb grows by less than 2^32 per
// term: at most kExactMaxTerms (2^30) terms per element. NaN and infinities follow IEEE: any NaN, or +inf with -inf,
// gives NaN; otherwise an infinity gives itself. All terms -0 give -0, an exact zero sum +0; a sum beyond the type's
// range rounds to infinity.
//
// Each element's "code" (uint8) names its window: -0 is 0, +0 is 1, a finite nonzero term 2 + its bin, an infinity
// kExactCodeInf, a NaN kExactCodeNaN. The maximum code over the terms selects the window, so a reduction computes it
// first (a max over the ranks), then converts and sums the limbs. Device-safe.
#ifndef KCOLL_COLLECTIVES_KERNELS_EXACT_SUM_H_
#define KCOLL_COLLECTIVES_KERNELS_EXACT_SUM_H_

#include <cstdint>
#include <type_traits>

#include "base/half.h"
#include "base/portability.h"
#include "base/types.h"

namespace kcoll {

constexpr int kExactBinBits = 32;
constexpr int kExactBinBias = 1088;  // (lead + bias) >= 0 for every double, subnormals included
constexpr uint8_t kExactCodeNegZero = 0;
constexpr uint8_t kExactCodePosZero = 1;
constexpr uint8_t kExactCodeInf = 250;
constexpr uint8_t kExactCodeNaN = 255;
constexpr int64_t kExactMaxTerms = int64_t{1} << 30;
// Infinities are counted in the first limb: +inf adds 1, -inf adds -2^31 (each count below kExactMaxTerms, so the
// two counts stay apart).
constexpr int64_t kExactNegInfUnit = int64_t{1} << 31;

// The properties of each floating-point storage type that the rounding needs.
template <class T>
struct ExactFormat;
template <>
struct ExactFormat<double> {
  static constexpr int kLimbs = 3;
  static constexpr int kSignificand = 53;
  static constexpr int kMinLsb = -1074;  // the weight of the smallest subnormal
  static constexpr int kMaxLead = 1023;
  KCOLL_INLINE_FUNCTION static double Widen(double v) { return v; }
  KCOLL_INLINE_FUNCTION static double Narrow(double v) { return v; }
};
template <>
struct ExactFormat<float> {
  static constexpr int kLimbs = 2;
  static constexpr int kSignificand = 24;
  static constexpr int kMinLsb = -149;
  static constexpr int kMaxLead = 127;
  KCOLL_INLINE_FUNCTION static double Widen(float v) { return v; }
  KCOLL_INLINE_FUNCTION static float Narrow(double v) { return static_cast<float>(v); }
};
template <>
struct ExactFormat<Float16> {
  static constexpr int kLimbs = 2;
  static constexpr int kSignificand = 11;
  static constexpr int kMinLsb = -24;
  static constexpr int kMaxLead = 15;
  KCOLL_INLINE_FUNCTION static double Widen(Float16 v) { return ToFloat(v); }
  KCOLL_INLINE_FUNCTION static Float16 Narrow(double v) { return ToFloat16(static_cast<float>(v)); }
};
template <>
struct ExactFormat<Bfloat16> {
  static constexpr int kLimbs = 2;
  static constexpr int kSignificand = 8;
  static constexpr int kMinLsb = -133;
  static constexpr int kMaxLead = 127;
  KCOLL_INLINE_FUNCTION static double Widen(Bfloat16 v) { return ToFloat(v); }
  KCOLL_INLINE_FUNCTION static Bfloat16 Narrow(double v) { return ToBfloat16(static_cast<float>(v)); }
};

// The limbs per element of a floating-point type (0 for the others).
inline int ExactLimbCount(DataType type) {
  switch (type) {
    case DataType::kFloat64:
      return ExactFormat<double>::kLimbs;
    case DataType::kFloat32:
      return ExactFormat<float>::kLimbs;
    case DataType::kFloat16:
      return ExactFormat<Float16>::kLimbs;
    case DataType::kBfloat16:
      return ExactFormat<Bfloat16>::kLimbs;
    default:
      return 0;
  }
}

namespace exact_internal {

union DoubleBits {
  double d;
  uint64_t u;
};

KCOLL_INLINE_FUNCTION uint64_t BitsOf(double d) {
  DoubleBits b;
  b.d = d;
  return b.u;
}

KCOLL_INLINE_FUNCTION double DoubleOf(uint64_t u) {
  DoubleBits b;
  b.u = u;
  return b.d;
}

// Number of significant bits of v (0 for 0).
KCOLL_INLINE_FUNCTION int BitLength(uint64_t v) {
  int n = 0;
  for (int step = 32; step > 0; step >>= 1) {
    if (v >> step) {
      v >>= step;
      n += step;
    }
  }
  return n + static_cast<int>(v);
}

KCOLL_INLINE_FUNCTION int BitLength(unsigned __int128 v) {
  const uint64_t high = static_cast<uint64_t>(v >> 64);
  return high ? 64 + BitLength(high) : BitLength(static_cast<uint64_t>(v));
}

// A finite double as sign, integer significand and the weight of its last bit: |d| = m * 2^q, m < 2^53.
struct Parts {
  bool negative;
  uint64_t m;
  int q;
};

KCOLL_INLINE_FUNCTION Parts PartsOf(double d) {
  const uint64_t u = BitsOf(d);
  const int biased = static_cast<int>((u >> 52) & 0x7ff);
  const uint64_t fraction = u & ((uint64_t{1} << 52) - 1);
  Parts p;
  p.negative = (u >> 63) != 0;
  p.m = biased ? (fraction | (uint64_t{1} << 52)) : fraction;
  p.q = (biased ? biased : 1) - 1075;
  return p;
}

// 2^e for -1022 <= e <= 1023.
KCOLL_INLINE_FUNCTION double Pow2(int e) { return DoubleOf(static_cast<uint64_t>(e + 1023) << 52); }

// r * 2^e, exact when the result is a double (r <= 2^53).
KCOLL_INLINE_FUNCTION double Scale(uint64_t r, int e) {
  const double x = static_cast<double>(r);
  if (e < -1022) return x * Pow2(e + 64) * Pow2(-64);
  return x * Pow2(e);
}

// The weight of the lowest bit of the window of `limbs` bins whose top bin is `top_bin`.
KCOLL_INLINE_FUNCTION int WindowBottom(int top_bin, int limbs) {
  return (top_bin - limbs + 1) * kExactBinBits - kExactBinBias;
}

}  // namespace exact_internal

// The code of one term (see the top of this file).
template <class T>
KCOLL_INLINE_FUNCTION uint8_t ExactCode(T term) {
  const double d = ExactFormat<T>::Widen(term);
  const uint64_t u = exact_internal::BitsOf(d);
  if (((u >> 52) & 0x7ff) == 0x7ff) return (u & ((uint64_t{1} << 52) - 1)) ? kExactCodeNaN : kExactCodeInf;
  const exact_internal::Parts p = exact_internal::PartsOf(d);
  if (p.m == 0) return p.negative ? kExactCodeNegZero : kExactCodePosZero;
  const int lead = p.q + exact_internal::BitLength(p.m) - 1;
  return static_cast<uint8_t>(2 + (lead + kExactBinBias) / kExactBinBits);
}

// Adds `term`'s limbs in the window that `code` (the maximum code of the element's terms) names to limbs[0..K).
template <class T>
KCOLL_INLINE_FUNCTION void ExactAddTerm(T term, uint8_t code, int64_t* limbs) {
  constexpr int K = ExactFormat<T>::kLimbs;
  const double d = ExactFormat<T>::Widen(term);
  if (code >= kExactCodeInf) {
    const uint64_t u = exact_internal::BitsOf(d);
    const bool infinite = ((u >> 52) & 0x7ff) == 0x7ff && (u & ((uint64_t{1} << 52) - 1)) == 0;
    if (code == kExactCodeInf && infinite) limbs[0] += (u >> 63) ? -kExactNegInfUnit : 1;
    return;
  }
  if (code <= kExactCodePosZero) return;
  const exact_internal::Parts p = exact_internal::PartsOf(d);
  // Bit j of m has weight 2^(q + j); limb k (k = 0 the top) holds weights from bottom + 32 (K - 1 - k) up.
  const int shift = p.q - exact_internal::WindowBottom(code - 2, K);
  for (int k = 0; k < K; ++k) {
    const int t = shift - kExactBinBits * (K - 1 - k);
    uint64_t chunk = 0;
    if (t >= 0 && t < 64) chunk = p.m << t;
    if (t < 0 && t > -64) chunk = p.m >> -t;
    chunk &= (uint64_t{1} << kExactBinBits) - 1;
    limbs[k] += p.negative ? -static_cast<int64_t>(chunk) : static_cast<int64_t>(chunk);
  }
}

// The element's sum from its limb sums, correctly rounded to T (round to nearest, ties to even).
template <class T>
KCOLL_INLINE_FUNCTION T ExactResult(const int64_t* limbs, uint8_t code) {
  using F = ExactFormat<T>;
  constexpr int K = F::kLimbs;
  const double nan = exact_internal::DoubleOf(0x7ff8000000000000ull);
  const double inf = exact_internal::DoubleOf(0x7ff0000000000000ull);
  if (code == kExactCodeNaN) return F::Narrow(nan);
  if (code == kExactCodeInf) {
    const int64_t v = limbs[0];
    const int64_t positive = ((v % kExactNegInfUnit) + kExactNegInfUnit) % kExactNegInfUnit;
    const int64_t negative = (positive - v) / kExactNegInfUnit;
    if (positive > 0 && negative > 0) return F::Narrow(nan);
    return F::Narrow(positive > 0 ? inf : -inf);
  }
  if (code == kExactCodeNegZero) return F::Narrow(-0.0);
  if (code == kExactCodePosZero) return F::Narrow(0.0);
  // The value is sum * 2^bottom: each limb sum is below kExactMaxTerms * 2^32 = 2^62, so |sum| < 2^127.
  __int128 sum = 0;
  for (int k = 0; k < K; ++k) sum = sum * (static_cast<__int128>(1) << kExactBinBits) + limbs[k];
  if (sum == 0) return F::Narrow(0.0);
  const bool negative = sum < 0;
  const unsigned __int128 mag = negative ? static_cast<unsigned __int128>(-sum) : static_cast<unsigned __int128>(sum);
  const int bottom = exact_internal::WindowBottom(code - 2, K);
  const int lead = exact_internal::BitLength(mag) - 1 + bottom;
  double result = inf;
  if (lead <= F::kMaxLead) {
    int lsb = lead - (F::kSignificand - 1);
    if (lsb < F::kMinLsb) lsb = F::kMinLsb;
    const int shift = lsb - bottom;
    uint64_t r;
    if (shift <= 0) {
      r = static_cast<uint64_t>(mag << -shift);
    } else if (shift >= 128) {
      r = 0;  // below half the smallest subnormal
    } else {
      r = static_cast<uint64_t>(mag >> shift);
      const unsigned __int128 rest = mag & ((static_cast<unsigned __int128>(1) << shift) - 1);
      const unsigned __int128 half = static_cast<unsigned __int128>(1) << (shift - 1);
      if (rest > half || (rest == half && (r & 1))) ++r;
    }
    // Rounding up to 2^p moves the lead one bit up, possibly past the largest finite value.
    if (!(r == (uint64_t{1} << F::kSignificand) && lsb + F::kSignificand > F::kMaxLead)) {
      result = exact_internal::Scale(r, lsb);
    }
  }
  return F::Narrow(negative ? -result : result);
}

// The whole sum of one element from its terms: the window of terms 0..window_terms-1, the sum of terms
// 0..sum_terms-1 (sum_terms <= window_terms; a prefix of a scan), term k at terms[k * stride].
template <class T>
KCOLL_INLINE_FUNCTION T ExactSumOfTerms(const T* terms, int64_t stride, int window_terms, int sum_terms) {
  uint8_t code = 0;
  for (int k = 0; k < window_terms; ++k) {
    const uint8_t c = ExactCode(terms[k * stride]);
    code = c > code ? c : code;
  }
  int64_t limbs[ExactFormat<T>::kLimbs] = {};
  for (int k = 0; k < sum_terms; ++k) ExactAddTerm(terms[k * stride], code, limbs);
  return ExactResult<T>(limbs, code);
}

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_KERNELS_EXACT_SUM_H_
