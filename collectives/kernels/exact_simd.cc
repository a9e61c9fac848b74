#include "collectives/kernels/exact_simd.h"

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "collectives/kernels/exact_sum.h"

// Not under nvcc (a CUDA build compiles every source with it): its front end need not parse the AVX-512 headers.
#if (defined(__x86_64__) || defined(__i386__)) && !defined(__CUDACC__)
#include <immintrin.h>
#define KCOLL_EXACT_SIMD_X86 1
// GCC 12's AVX-512 intrinsics start from _mm512_undefined_epi32(), which its own -Wmaybe-uninitialized flags in
// every caller: a false positive about the headers, silenced for this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

namespace kcoll {
namespace {

// Where an element's terms lie, and Scalar(i): ExactSumOfTerms of element i, for the elements the vectors leave.
struct StridedTerms {  // term k of element i at Row(k)[i], rows `stride` elements apart (Sums)
  const double* terms;
  size_t stride;
  int window_terms;
  int sum_terms;
  const double* Row(int k) const { return terms + k * stride; }
  double Scalar(size_t i) const {
    return ExactSumOfTerms(terms + i, static_cast<int64_t>(stride), window_terms, sum_terms);
  }
};
struct PairTerms {  // the two terms of element i at a[i] and b[i], two ranks' copies of a block (PairSums)
  const double* a;
  const double* b;
  double Scalar(size_t i) const {
    const double two[2] = {a[i], b[i]};
    return ExactSumOfTerms(two, 1, 2, 2);
  }
};

#if defined(KCOLL_EXACT_SIMD_X86)

constexpr double kLargestFinite = 0x1.fffffffffffffp+1023;
// A largest term below this leaves the window's powers of two outside the normal range: ExactSumOfTerms's case.
constexpr double kSmallestLargest = 0x1p-900;
// A result below this may be subnormal, where the two products' sum is not the one rounding: ExactSumOfTerms's case.
constexpr double kSmallestResult = 0x1p-1000;

bool CpuHasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

bool CpuHasAvx512() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}

// exact_sum.h's window in exponent fields: a double's exponent field f (bias 1023) puts its leading bit in bin
// (f + kFieldToBin) / kExactBinBits, and the window whose top bin is `bin` has its lowest bit's weight at
// 2^(kExactBinBits bin - kWindowBelowBin).
constexpr int kBinShift = 4;
static_assert((1 << kBinShift) == kExactBinBits, "bins are found with a shift");
constexpr uint64_t kFieldToBin = kExactBinBias - 1023;
constexpr uint64_t kWindowBelowBin = (ExactFormat<double>::kBins - 1) * kExactBinBits + kExactBinBias;

// The sums in the vectors of `Isa` (GCC's vector extensions: arithmetic, comparisons and bit operations lane by lane,
// a scalar operand broadcast), which brings its vector types, truncation, the lane-wise maximum and the lanes of a
// comparison as bits: one of the structs below, each instantiating this in a region of its own target.
template <class Isa>
void Sums(double* dst, const StridedTerms& t, size_t n) {
  const int window_terms = t.window_terms, sum_terms = t.sum_terms;
  using V = typename Isa::V;  // doubles
  using U = typename Isa::U;  // the same bits as uint64
  constexpr int kLanes = sizeof(V) / sizeof(double);
  constexpr unsigned kAll = (1u << kLanes) - 1;
  constexpr uint64_t kMagnitude = ~(uint64_t{1} << 63);
  constexpr uint64_t kSign = uint64_t{1} << 63;
  const V zero = V{} * 0.0;
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    V largest = zero;
    U all_negative = (U)zero | kSign;  // keeps the sign bit where every term of the window has it
    auto finite = largest == largest;
    for (int k = 0; k < window_terms; ++k) {
      V x;
      std::memcpy(&x, t.Row(k) + i, sizeof(V));
      const V a = (V)((U)x & kMagnitude);
      finite &= a <= kLargestFinite;  // false for NaN and infinities
      largest = Isa::Max(a, largest);
      all_negative &= (U)x;
    }
    // The bin of the largest term's leading bit and its window's lowest bit's weight 2^b, b = kExactBinBits bin -
    // kWindowBelowBin: scale = 2^-b and unit = 2^b, built as exponent fields. Elements of zeros only take a window
    // they do not need (their words are zeros) and the sign exact_sum.h gives them: -0 when every term is -0.
    const V windowed = Isa::Max(largest, zero + kSmallestLargest);
    const U bin_bits = ((((U)windowed >> 52) + kFieldToBin) >> kBinShift) << kBinShift;  // kExactBinBits bin
    const V scale = (V)((1023 + kWindowBelowBin - bin_bits) << 52);
    const V unit = (V)((bin_bits + 1023 - kWindowBelowBin) << 52);
    V high = zero, low = zero;  // +0: a sum of -0 words is +0, as exact_sum.h's integers are
    for (int k = 0; k < sum_terms; ++k) {
      V x;
      std::memcpy(&x, t.Row(k) + i, sizeof(V));
      const V y = (V)((U)x & kMagnitude) * scale;
      const V h = Isa::Trunc(y * 0x1p-40) * 0x1p40;
      const V l = Isa::Trunc(y - h);  // exact: y - h is below 2^40 and keeps y's lowest bit
      const U sign = (U)x & kSign;
      high += (V)((U)h | sign);
      low += (V)((U)l | sign);
    }
    const V sum = high * unit + low * unit;
    const V r = (V)((U)sum | (largest == 0.0 ? all_negative : (U)zero));
    const V magnitude = (V)((U)r & kMagnitude);
    const auto normal = (magnitude >= kSmallestResult) & (magnitude <= kLargestFinite);
    const auto windowable = (largest >= kSmallestLargest) | (largest == 0.0);
    const unsigned ok = Isa::Bits(finite & windowable & (normal | (magnitude == 0.0)));
    // Every term of these elements is read before any of them is written: dst may be the first row of terms.
    double out[kLanes];
    std::memcpy(out, &r, sizeof(out));
    for (int j = 0; j < kLanes && ok != kAll; ++j) {
      if (!(ok >> j & 1)) out[j] = t.Scalar(i + j);
    }
    std::memcpy(dst + i, out, sizeof(out));
  }
  for (; i < n; ++i) dst[i] = t.Scalar(i);
}

// Two terms (PairTerms), the same bits by a shorter road. A term truncated to the window is the term with its bits
// below the window's lowest cleared, a double again; the larger term loses none (the window keeps 64 bits below its
// leading bit). Rounding the exact sum of the two truncated terms once is what IEEE addition of the two does. So:
// clear each term's bits below the window, add. The same elements as in Sums go to ExactSumOfTerms.
template <class Isa>
void PairSums(double* dst, const PairTerms& t, size_t n) {
  using V = typename Isa::V;  // doubles
  using U = typename Isa::U;  // the same bits as uint64
  using S = typename Isa::S;  // and as int64
  constexpr int kLanes = sizeof(V) / sizeof(double);
  constexpr unsigned kAll = (1u << kLanes) - 1;
  constexpr uint64_t kMagnitude = ~(uint64_t{1} << 63);
  constexpr uint64_t kSign = uint64_t{1} << 63;
  const V zero = V{} * 0.0;
  const S none = (S)zero;
  const U all = (U)zero | ~uint64_t{0};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    V x0, x1;
    std::memcpy(&x0, t.a + i, sizeof(V));
    std::memcpy(&x1, t.b + i, sizeof(V));
    const U b0 = (U)x0, b1 = (U)x1;
    const V m0 = (V)(b0 & kMagnitude), m1 = (V)(b1 & kMagnitude);
    const V largest = Isa::Max(m0, m1);
    const auto finite = (m0 <= kLargestFinite) & (m1 <= kLargestFinite);  // false for NaN and infinities
    const V windowed = Isa::Max(largest, zero + kSmallestLargest);
    const U bin_bits = ((((U)windowed >> 52) + kFieldToBin) >> kBinShift) << kBinShift;  // as in Sums
    // A term of exponent field f has its lowest bit at field f - 52; the window's lowest bit is at field
    // bin_bits + 1023 - kWindowBelowBin. The difference is how many of its bits lie below: none (<= 0), some, or all
    // (>= 53: the term becomes a zero of its sign). Subnormal terms have f = 0 and lie below every such window.
    const S lowest = (S)(bin_bits + (1023 + 52 - kWindowBelowBin));
    const U bits[2] = {b0, b1};
    V kept[2];
    for (int k = 0; k < 2; ++k) {
      const S below = lowest - (S)((bits[k] >> 52) & 0x7ff);
      U keep = all << ((U)below & 63);
      keep = below <= none ? all : keep;
      keep = below >= none + 53 ? (U)zero | kSign : keep;
      kept[k] = (V)(bits[k] & keep);
    }
    const V r = kept[0] + kept[1];
    const V magnitude = (V)((U)r & kMagnitude);
    const auto normal = (magnitude >= kSmallestResult) & (magnitude <= kLargestFinite);
    const auto windowable = (largest >= kSmallestLargest) | (largest == 0.0);
    const unsigned ok = Isa::Bits(finite & windowable & (normal | (magnitude == 0.0)));
    double out[kLanes];  // both terms are read before dst, which may be either, is written
    std::memcpy(out, &r, sizeof(out));
    for (int j = 0; j < kLanes && ok != kAll; ++j) {
      if (!(ok >> j & 1)) out[j] = t.Scalar(i + j);
    }
    std::memcpy(dst + i, out, sizeof(out));
  }
  for (; i < n; ++i) dst[i] = t.Scalar(i);
}

#pragma GCC push_options
#pragma GCC target("avx2")
struct Avx2 {
  using V = __m256d;
  using U = uint64_t __attribute__((vector_size(32)));
  using S = int64_t __attribute__((vector_size(32)));
  static V Trunc(V a) { return _mm256_round_pd(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
  static V Max(V a, V b) { return _mm256_max_pd(a, b); }
  static unsigned Bits(__m256i lanes) { return static_cast<unsigned>(_mm256_movemask_pd(_mm256_castsi256_pd(lanes))); }
};
template void Sums<Avx2>(double*, const StridedTerms&, size_t);
template void PairSums<Avx2>(double*, const PairTerms&, size_t);
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f")
struct Avx512 {
  using V = __m512d;
  using U = uint64_t __attribute__((vector_size(64)));
  using S = int64_t __attribute__((vector_size(64)));
  static V Trunc(V a) { return _mm512_roundscale_pd(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
  static V Max(V a, V b) { return _mm512_max_pd(a, b); }
  static unsigned Bits(__m512i lanes) { return _mm512_test_epi64_mask(lanes, lanes); }
};
template void Sums<Avx512>(double*, const StridedTerms&, size_t);
template void PairSums<Avx512>(double*, const PairTerms&, size_t);
#pragma GCC pop_options

#endif  // KCOLL_EXACT_SIMD_X86

// Runs Sums with the best instruction set `level` allows; false where the CPU has none of them.
template <class Terms>
bool DispatchSums(ExactSimd level, double* dst, const Terms& terms, size_t n) {
  if (!HostExactSimdAvailable(level)) return false;
#if defined(KCOLL_EXACT_SIMD_X86)
  const bool avx512 = level == ExactSimd::kAvx512 || (level == ExactSimd::kBest && CpuHasAvx512());
  if constexpr (std::is_same<Terms, PairTerms>::value) {
    avx512 ? PairSums<Avx512>(dst, terms, n) : PairSums<Avx2>(dst, terms, n);
  } else {
    avx512 ? Sums<Avx512>(dst, terms, n) : Sums<Avx2>(dst, terms, n);
  }
  return true;
#else
  (void)dst, (void)terms, (void)n;
  return false;
#endif
}

}  // namespace

bool HostExactSimdAvailable(ExactSimd level) {
#if defined(KCOLL_EXACT_SIMD_X86)
  switch (level) {
    case ExactSimd::kBest:
      return CpuHasAvx2() || CpuHasAvx512();
    case ExactSimd::kAvx2:
      return CpuHasAvx2();
    case ExactSimd::kAvx512:
      return CpuHasAvx512();
  }
#endif
  (void)level;
  return false;
}

bool HostExactSums(ExactSimd level, double* dst, const double* terms, size_t stride, size_t n, int window_terms,
                   int sum_terms) {
  if (sum_terms < 1 || sum_terms > window_terms || sum_terms > kExactSimdMaxTerms) return false;
  return DispatchSums(level, dst, StridedTerms{terms, stride, window_terms, sum_terms}, n);
}

bool HostExactSums(double* dst, const double* terms, size_t stride, size_t n, int window_terms, int sum_terms) {
  return HostExactSums(ExactSimd::kBest, dst, terms, stride, n, window_terms, sum_terms);
}

bool HostExactPairSums(ExactSimd level, double* dst, const double* a, const double* b, size_t n) {
  return DispatchSums(level, dst, PairTerms{a, b}, n);
}

bool HostExactPairSums(double* dst, const double* a, const double* b, size_t n) {
  return HostExactPairSums(ExactSimd::kBest, dst, a, b, n);
}

}  // namespace kcoll
