// numerics=exact's float64 sums on x86 hosts, 8 (AVX-512F) or 4 (AVX2) elements at a time: bit for bit what
// ExactSumOfTerms (exact_sum.h) computes one element at a time, several times faster. The scalar form spends ~100
// integer operations per term on shifts whose counts change from element to element, which SSE2 cannot vectorise.
//
// The same arithmetic in floating point: with m the element's largest |term| (a normal number at least 2^-900, so
// every power of two below fits a double), the window's lowest bit has weight 2^b, b fixed by m's exponent. Each term
// scaled to y = |x| 2^-b is exact and below 2^80; its high word h = trunc(y 2^-40) 2^40 and low word
// l = trunc(y - h) are the window integer's two 40-bit words (exact_sum.h) as doubles; their signed sums stay exact
// while fewer than 2^13 terms are added (at most 40 + 13 bits each). The result high 2^b + low 2^b is then one IEEE
// addition of two exact products: the correctly rounded sum when it is a normal number. An element whose largest term
// is NaN, infinite or below 2^-900 (but not zero), or whose sum is subnormal or overflows, is left to ExactSumOfTerms.
#ifndef KCOLL_COLLECTIVES_KERNELS_EXACT_SIMD_H_
#define KCOLL_COLLECTIVES_KERNELS_EXACT_SIMD_H_

#include <cstddef>

namespace kcoll {

// The most terms per element the vector path sums (its double word sums stay exact below 2^53).
constexpr int kExactSimdMaxTerms = 1 << 13;

// dst[i] = ExactSumOfTerms(terms + i, stride, window_terms, sum_terms) for i < n (term k of element i at
// terms[k * stride + i]); dst may be the first row of terms. False, with nothing written, where this CPU has neither
// instruction set or sum_terms is not in 1..min(window_terms, kExactSimdMaxTerms).
bool HostExactSums(double* dst, const double* terms, size_t stride, size_t n, int window_terms, int sum_terms);

// dst[i] = ExactSumOfTerms of the two terms a[i] and b[i] (the same bits in either order), for two ranks' copies of a
// block held apart; dst may be a or b. False, with nothing written, where this CPU has neither instruction set.
bool HostExactPairSums(double* dst, const double* a, const double* b, size_t n);

// The instruction sets, for tests that check each path against the element-wise one. kBest is what HostExactSums
// uses: AVX-512F where the CPU has it, else AVX2.
enum class ExactSimd { kBest, kAvx2, kAvx512 };
bool HostExactSimdAvailable(ExactSimd level);
bool HostExactSums(ExactSimd level, double* dst, const double* terms, size_t stride, size_t n, int window_terms,
                   int sum_terms);
bool HostExactPairSums(ExactSimd level, double* dst, const double* a, const double* b, size_t n);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_KERNELS_EXACT_SIMD_H_
