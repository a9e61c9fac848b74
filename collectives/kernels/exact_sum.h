// numerics=exact's arithmetic, per element (docs/numerics.md): a floating-point sum whose bits depend only on the
// multiset of its terms, not on their order, their grouping or how many ranks held them.
//
// Binary positions are cut into fixed bins of kExactBinBits (16) bits: bin b holds the weights 2^(16 b - 1088) up to
// 2^(16 b + 15 - 1088). An element's window is the K bins from the bin of its largest term's leading bit down (K = 5
// for float64, 80 bits; 3 for 32- and 16-bit floats, 48 bits). Each term contributes its bits inside the window as an
// integer (the bits below are dropped: truncated towards zero, sign kept). Integer addition is exact and
// associative, so the window's sum, and its one correct rounding to the element type at the end, are the same however
// the terms are ordered or grouped. Because the bins are fixed positions, a partial sum held bin by bin can move its
// window up by dropping whole bins, which is what dropping each term's bits would do: an accumulator that holds many
// terms per element (exact_accumulator.h) gives the same bits as one term per rank.
//
// What is kept: at least 64 bits below the largest term's leading bit for float64, 32 for the others, more than
// their significands; so a single term comes back unchanged, and the result is the correctly rounded sum of the terms
// truncated there. NaN and infinities follow IEEE: any NaN, or +inf with -inf, gives NaN; otherwise an infinity gives
// itself. All terms -0 give -0, an exact zero sum +0; a sum beyond the type's range rounds to infinity.
//
// Two integer forms carry a window's value:
// - words, what a reduction sends: the window's integer cut into kWords int64 of kWordBits bits each (float64: 2 of
//   40 bits, the others: 1 of 48), each summed as an int64. A word grows by less than 2^kWordBits per term, so a
//   reduction takes at most ExactMaxRanks(type) terms per element (2^23 for float64, 2^15 for the others);
// - bins, what an accumulator keeps: one int64 per bin (K of them), each growing by less than 2^16 per term, at most
//   kExactMaxTerms (2^30) terms per element, and movable to a higher window.
//
// Each element's "code" (uint8) names its window: -0 is 0, +0 is 1, a finite nonzero term 2 + its bin, an infinity
// kExactCodeInf, a NaN kExactCodeNaN. The maximum code over the terms selects the window, so a reduction computes it
// first (a max over the ranks), then converts and sums. Device-safe.
#ifndef KCOLL_COLLECTIVES_KERNELS_EXACT_SUM_H_
#define KCOLL_COLLECTIVES_KERNELS_EXACT_SUM_H_

#include <cstdint>
#include <type_traits>

#include "base/half.h"
#include "base/portability.h"
#include "base/types.h"

namespace kcoll {

constexpr int kExactBinBits = 16;
constexpr int kExactBinBias = 1088;  // (lead + bias) >= 0 for every double, subnormals included
constexpr uint8_t kExactCodeNegZero = 0;
constexpr uint8_t kExactCodePosZero = 1;
constexpr uint8_t kExactCodeInf = 250;
constexpr uint8_t kExactCodeNaN = 255;
// An accumulator's bins: at most this many terms per element.
constexpr int64_t kExactMaxTerms = int64_t{1} << 30;
// Infinities are counted in the first word (or bin): +inf adds 1, -inf adds -2^31 (each count below 2^31, so the two
// counts stay apart).
constexpr int64_t kExactNegInfUnit = int64_t{1} << 31;

// The properties of each floating-point storage type that the rounding needs.
template <class T>
struct ExactFormat;
// The 32- and 16-bit types' window: 3 bins (48 bits), one 48-bit word per element in a reduction.
struct ExactWindow48 {
  static constexpr int kBins = 3;
  static constexpr int kWords = 1;
  static constexpr int kWordBits = 48;
};
template <>
struct ExactFormat<double> {
  static constexpr int kBins = 5;
  static constexpr int kWords = 2;
  static constexpr int kWordBits = 40;
  static constexpr int kSignificand = 53;
  static constexpr int kMinLsb = -1074;  // the weight of the smallest subnormal
  static constexpr int kMaxLead = 1023;
  KCOLL_INLINE_FUNCTION static double Widen(double v) { return v; }
  KCOLL_INLINE_FUNCTION static double Narrow(double v) { return v; }
};
// The 32- and 16-bit types: summed from their float values, rounded back through float.
template <class T, int Significand, int MinLsb, int MaxLead>
struct ExactNarrowFormat : ExactWindow48 {
  static constexpr int kSignificand = Significand;
  static constexpr int kMinLsb = MinLsb;  // the weight of the smallest subnormal
  static constexpr int kMaxLead = MaxLead;
  KCOLL_INLINE_FUNCTION static double Widen(T v) { return static_cast<double>(ToFloat(v)); }
  KCOLL_INLINE_FUNCTION static T Narrow(double v) { return FromFloat<T>(static_cast<float>(v)); }
};
template <>
struct ExactFormat<float> : ExactNarrowFormat<float, 24, -149, 127> {};
template <>
struct ExactFormat<Float16> : ExactNarrowFormat<Float16, 11, -24, 15> {};
template <>
struct ExactFormat<Bfloat16> : ExactNarrowFormat<Bfloat16, 8, -133, 127> {};

// The bins per element of a floating-point type's accumulator (0 for the others).
inline int ExactBinCount(DataType type) {
  switch (type) {
    case DataType::kFloat64:
      return ExactFormat<double>::kBins;
    case DataType::kFloat32:
    case DataType::kFloat16:
    case DataType::kBfloat16:
      return ExactWindow48::kBins;
    default:
      return 0;
  }
}

// The most terms per element a reduction's words can sum: each word stays below 2^63.
inline int64_t ExactMaxRanks(DataType type) {
  return int64_t{1} << (63 -
                        (type == DataType::kFloat64 ? ExactFormat<double>::kWordBits : ExactFormat<float>::kWordBits));
}

namespace exact_internal {

KCOLL_INLINE_FUNCTION uint64_t BitsOf(double d) { return BitCast<uint64_t>(d); }
KCOLL_INLINE_FUNCTION double DoubleOf(uint64_t u) { return BitCast<double>(u); }

// Number of significant bits of v (0 for 0).
KCOLL_INLINE_FUNCTION int BitLength(uint64_t v) {
#if defined(__CUDA_ARCH__)
  return 64 - __clzll(static_cast<long long>(v));
#else
  return v == 0 ? 0 : 64 - __builtin_clzll(v);
#endif
}

KCOLL_INLINE_FUNCTION int BitLength(unsigned __int128 v) {
  const uint64_t high = static_cast<uint64_t>(v >> 64);
  return high ? 64 + BitLength(high) : BitLength(static_cast<uint64_t>(v));
}

// 2^e for -1022 <= e <= 1023.
KCOLL_INLINE_FUNCTION double Pow2(int e) { return DoubleOf(static_cast<uint64_t>(e + 1023) << 52); }

// r * 2^e, exact when the result is a double (r <= 2^53).
KCOLL_INLINE_FUNCTION double Scale(uint64_t r, int e) {
  const double x = static_cast<double>(r);
  if (e < -1022) return x * Pow2(e + 64) * Pow2(-64);
  return x * Pow2(e);
}

// The weight of the lowest bit of the window of `bins` bins whose top bin the finite code `code` names.
KCOLL_INLINE_FUNCTION int WindowBottom(uint8_t code, int bins) {
  return (static_cast<int>(code) - 2 - bins + 1) * kExactBinBits - kExactBinBias;
}

// The window's integer of finite `d` in the window that finite nonzero `code` names (the bits below it dropped).
KCOLL_INLINE_FUNCTION unsigned __int128 WindowValue(uint64_t u, uint8_t code, int bins) {
  const int biased = static_cast<int>((u >> 52) & 0x7ff);
  const uint64_t fraction = u & ((uint64_t{1} << 52) - 1);
  const uint64_t m = biased ? (fraction | (uint64_t{1} << 52)) : fraction;  // |d| = m * 2^q
  const int q = (biased ? biased : 1) - 1075;
  const int shift = q - WindowBottom(code, bins);
  if (shift >= 0) return static_cast<unsigned __int128>(m) << shift;
  return shift > -64 ? m >> -shift : 0;
}

// +1 for +inf, -2^31 for -inf, 0 for anything else.
KCOLL_INLINE_FUNCTION int64_t InfinityCount(uint64_t u) {
  const bool infinite = ((u >> 52) & 0x7ff) == 0x7ff && (u & ((uint64_t{1} << 52) - 1)) == 0;
  return infinite ? ((u >> 63) ? -kExactNegInfUnit : 1) : 0;
}

// Adds `term`'s window integer, cut into `parts` pieces of `bits` bits (the most significant first), to out[0..parts).
KCOLL_INLINE_FUNCTION void AddCut(double term, uint8_t code, int bins, int parts, int bits, int64_t* out) {
  const uint64_t u = BitsOf(term);
  if (code >= kExactCodeInf) {
    if (code == kExactCodeInf) out[0] += InfinityCount(u);
    return;
  }
  if (code <= kExactCodePosZero) return;
  const unsigned __int128 value = WindowValue(u, code, bins);
  const bool negative = (u >> 63) != 0;
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  for (int k = 0; k < parts; ++k) {
    const int64_t piece = static_cast<int64_t>(static_cast<uint64_t>(value >> (bits * (parts - 1 - k))) & mask);
    out[k] += negative ? -piece : piece;
  }
}

// The same for a window of at most 80 bits cut into two words of 40 (float64's words) or one of 48 (the others'),
// in 64-bit arithmetic: what a reduction converts every element with.
KCOLL_INLINE_FUNCTION void AddWords(double term, uint8_t code, int bins, int words, int64_t* out) {
  const uint64_t u = BitsOf(term);
  const int biased = static_cast<int>((u >> 52) & 0x7ff);
  if (code >= kExactCodeInf || code <= kExactCodePosZero || biased == 0) {  // specials, zeros, subnormals
    AddCut(term, code, bins, words, words == 2 ? 40 : 48, out);
    return;
  }
  const uint64_t m = (u & ((uint64_t{1} << 52) - 1)) | (uint64_t{1} << 52);  // a normal number: |d| = m * 2^q
  const int shift = biased - 1075 - WindowBottom(code, bins);  // at most 27: m has 53 bits, the window's top is above
  // Branch-free (a term's shift changes from element to element): v is m shifted right when shift < 0, else m.
  const int right = shift < 0 ? -shift : 0;
  const int left = shift > 0 ? shift : 0;
  const uint64_t v = (m >> (right < 63 ? right : 63)) & (right < 64 ? ~uint64_t{0} : 0);
  const uint64_t sign = uint64_t{0} - (u >> 63);  // all ones for a negative term: negate as (x ^ sign) - sign
  if (words == 2) {
    const uint64_t high = v >> (40 - left);
    const uint64_t low = (v << left) & ((uint64_t{1} << 40) - 1);
    out[0] += static_cast<int64_t>((high ^ sign) - sign);
    out[1] += static_cast<int64_t>((low ^ sign) - sign);
  } else {
    out[0] += static_cast<int64_t>(((v << left) ^ sign) - sign);
  }
}

}  // namespace exact_internal

// The code of one term (see the top of this file).
template <class T>
KCOLL_INLINE_FUNCTION uint8_t ExactCode(T term) {
  const uint64_t u = exact_internal::BitsOf(ExactFormat<T>::Widen(term));
  const int biased = static_cast<int>((u >> 52) & 0x7ff);
  const uint64_t fraction = u & ((uint64_t{1} << 52) - 1);
  if (static_cast<unsigned>(biased - 1) < 0x7feu)
    return static_cast<uint8_t>(2 + (biased - 1023 + kExactBinBias) / kExactBinBits);  // normal
  if (biased == 0x7ff) return fraction ? kExactCodeNaN : kExactCodeInf;
  if (biased == 0 && fraction == 0) return (u >> 63) ? kExactCodeNegZero : kExactCodePosZero;
  const int lead = biased ? biased - 1023 : exact_internal::BitLength(fraction) - 1075;
  return static_cast<uint8_t>(2 + (lead + kExactBinBias) / kExactBinBits);
}

// Adds `term`'s words in the window `code` names (the maximum code of the element's terms) to words[0..kWords).
template <class T>
KCOLL_INLINE_FUNCTION void ExactAddTerm(T term, uint8_t code, int64_t* words) {
  using F = ExactFormat<T>;
  exact_internal::AddWords(F::Widen(term), code, F::kBins, F::kWords, words);
}

// The same in bins: adds `term`'s bins of the window `code` names to bins[0..kBins), the top bin first.
template <class T>
KCOLL_INLINE_FUNCTION void ExactAddTermToBins(T term, uint8_t code, int64_t* bins) {
  using F = ExactFormat<T>;
  exact_internal::AddCut(F::Widen(term), code, F::kBins, F::kBins, kExactBinBits, bins);
}

// The element's sum from the integer value of its window (`sum`, in units of the window's lowest bit), correctly
// rounded to T (round to nearest, ties to even); specials from `sum` as their counts when `code` says so.
template <class T>
KCOLL_INLINE_FUNCTION T ExactRoundSum(__int128 sum, uint8_t code) {
  using F = ExactFormat<T>;
  const double nan = exact_internal::DoubleOf(0x7ff8000000000000ull);
  const double inf = exact_internal::DoubleOf(0x7ff0000000000000ull);
  if (code == kExactCodeNaN) return F::Narrow(nan);
  if (code == kExactCodeInf) {
    const int64_t v = static_cast<int64_t>(sum);
    const int64_t positive = ((v % kExactNegInfUnit) + kExactNegInfUnit) % kExactNegInfUnit;
    const int64_t negative = (positive - v) / kExactNegInfUnit;
    if (positive > 0 && negative > 0) return F::Narrow(nan);
    return F::Narrow(positive > 0 ? inf : -inf);
  }
  if (code == kExactCodeNegZero) return F::Narrow(-0.0);
  if (code == kExactCodePosZero || sum == 0) return F::Narrow(0.0);
  const bool negative = sum < 0;
  const unsigned __int128 mag = negative ? static_cast<unsigned __int128>(-sum) : static_cast<unsigned __int128>(sum);
  const int bottom = exact_internal::WindowBottom(code, F::kBins);
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

// The element's sum from its word sums (a reduction's).
template <class T>
KCOLL_INLINE_FUNCTION T ExactResult(const int64_t* words, uint8_t code) {
  using F = ExactFormat<T>;
  if (code >= kExactCodeInf) return ExactRoundSum<T>(words[0], code);  // the infinities' counts
  if (code > kExactCodePosZero) {
    // Normal results, the common case, without 128-bit arithmetic. float64: each word sum below 2^53 converts exactly,
    // and the IEEE sum of the two scaled words is the one correct rounding of their value. float32: the one word
    // converts with one rounding. (Below the normal range, or words beyond 2^53, the general path.)
    const int bottom = exact_internal::WindowBottom(code, F::kBins);
    constexpr int64_t kExact = int64_t{1} << 53;
    if constexpr (std::is_same<T, double>::value) {
      if (words[0] > -kExact && words[0] < kExact && words[1] > -kExact && words[1] < kExact && bottom >= -1000) {
        const double r = static_cast<double>(words[0]) * exact_internal::Pow2(bottom + 40) +
                         static_cast<double>(words[1]) * exact_internal::Pow2(bottom);
        const double a = r < 0 ? -r : r;
        if (a >= 0x1p-1000 && a <= 0x1.fffffffffffffp+1023) return r;
        if (r == 0) return 0.0;
      }
    } else if constexpr (std::is_same<T, float>::value) {
      const float w = static_cast<float>(words[0]);                            // one rounding to 24 bits
      const double r = static_cast<double>(w) * exact_internal::Pow2(bottom);  // exact
      const double a = r < 0 ? -r : r;
      if (bottom >= -1000 && a >= 0x1p-120 && a <= 0x1.fffffep+127) return static_cast<float>(r);
      if (words[0] == 0) return 0.0f;
    }
  }
  __int128 sum = 0;
  for (int k = 0; k < F::kWords; ++k) sum = sum * (static_cast<__int128>(1) << F::kWordBits) + words[k];
  return ExactRoundSum<T>(sum, code);
}

// The element's sum from its bin sums (an accumulator's): each below 2^46, so the window's value stays below 2^127.
template <class T>
KCOLL_INLINE_FUNCTION T ExactResultFromBins(const int64_t* bins, uint8_t code) {
  if (code >= kExactCodeInf) return ExactRoundSum<T>(bins[0], code);  // the infinities' counts
  __int128 sum = 0;
  for (int k = 0; k < ExactFormat<T>::kBins; ++k) sum = sum * (static_cast<__int128>(1) << kExactBinBits) + bins[k];
  return ExactRoundSum<T>(sum, code);
}

// ExactSumOfTerms through the words, for every type and every case.
template <class T>
KCOLL_INLINE_FUNCTION T ExactSumOfTermsInWords(const T* terms, int64_t stride, int window_terms, int sum_terms) {
  uint8_t code = 0;
  for (int k = 0; k < window_terms; ++k) {
    const uint8_t c = ExactCode(terms[k * stride]);
    code = c > code ? c : code;
  }
  int64_t words[ExactFormat<T>::kWords] = {};
  for (int k = 0; k < sum_terms; ++k) ExactAddTerm(terms[k * stride], code, words);
  return ExactResult<T>(words, code);
}

// The most float32 terms FloatSumInDouble adds: each term truncated at the window's bottom is an integer below 2^48 in
// units of that bottom bit, so 32 of them sum below 2^53, exactly, in a double.
constexpr int kExactFloatInDoubleMaxTerms = 32;

namespace exact_internal {

// ExactSumOfTerms for float32 in double arithmetic, without the words: each term scaled by the window's bottom is
// exact, truncating it drops the bits below the window as the words do, the double sum of at most
// kExactFloatInDoubleMaxTerms such integers is exact, and converting it to float is the one rounding to nearest even.
// False, with *out untouched, where the words' path decides: a NaN or infinite term, all terms zero, more terms, or a
// result outside float's normal range (so that neither a flush to zero nor an overflow rule can differ).
KCOLL_INLINE_FUNCTION bool FloatSumInDouble(const float* terms, int64_t stride, int window_terms, int sum_terms,
                                            float* out) {
  if (sum_terms > kExactFloatInDoubleMaxTerms) return false;
  float largest = 0;
  bool finite = true;
  for (int k = 0; k < window_terms; ++k) {
    const float t = terms[k * stride];
    const float a = t < 0 ? -t : t;
    finite = finite && a <= 0x1.fffffep+127f;  // false for a NaN too
    largest = a > largest ? a : largest;
  }
  if (!finite || largest == 0) return false;
  const int lead = static_cast<int>((BitsOf(static_cast<double>(largest)) >> 52) & 0x7ff) - 1023;
  const uint8_t code = static_cast<uint8_t>(2 + (lead + kExactBinBias) / kExactBinBits);  // as ExactCode
  const int bottom = WindowBottom(code, ExactWindow48::kBins);                            // between -192 and 80
  const double down = Pow2(-bottom), up = Pow2(bottom);
  double sum = 0;
  for (int k = 0; k < sum_terms; ++k) {
    sum += static_cast<double>(static_cast<int64_t>(static_cast<double>(terms[k * stride]) * down));
  }
  const double r = sum * up;
  const double a = r < 0 ? -r : r;
  if (sum != 0 && (a < 0x1p-126 || a > 0x1.fffffep+127)) return false;
  *out = sum == 0 ? 0.0f : static_cast<float>(r);
  return true;
}

}  // namespace exact_internal

// The whole sum of one element from its terms: the window of terms 0..window_terms-1, the sum of terms
// 0..sum_terms-1 (sum_terms <= window_terms; a prefix of a scan), term k at terms[k * stride].
template <class T>
KCOLL_INLINE_FUNCTION T ExactSumOfTerms(const T* terms, int64_t stride, int window_terms, int sum_terms) {
  if constexpr (std::is_same<T, float>::value) {
    float fast;
    if (exact_internal::FloatSumInDouble(terms, stride, window_terms, sum_terms, &fast)) return fast;
  }
  return ExactSumOfTermsInWords(terms, stride, window_terms, sum_terms);
}

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_KERNELS_EXACT_SUM_H_
