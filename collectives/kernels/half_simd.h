// Sum and product of 16-bit floats on x86 hosts, vectorised: 8 elements at a time widened to float with F16C
// (binary16) or a shift (bfloat16), combined in float, and narrowed with round-to-nearest-even, bit for bit what
// ElementOps<Float16/Bfloat16> computes one element at a time (same float arithmetic, same rounding, NaNs quieted
// alike; when both operands are NaN, which payload the result carries follows the operand order the compiler chose
// for the element-wise addition, so only NaN-ness is the same). The software conversions cannot be vectorised by the
// compiler and run 10-60x slower than a float32 reduction. The CPU is asked at run time (AVX2, and F16C for binary16);
// without it, or for other ops, the functions return false and the caller runs the element-wise path.
#ifndef KCOLL_COLLECTIVES_KERNELS_HALF_SIMD_H_
#define KCOLL_COLLECTIVES_KERNELS_HALF_SIMD_H_

#include <cstddef>

#include "base/half.h"
#include "base/types.h"

namespace kcoll {

// dst[i] = a[i] op b[i] for i < n, op kSum (or kAvg, summed) or kProd. dst may be a or b. False: not handled here.
bool HostReduceHalves(ReduceOp op, Float16* dst, const Float16* a, const Float16* b, size_t n);
bool HostReduceHalves(ReduceOp op, Bfloat16* dst, const Bfloat16* a, const Bfloat16* b, size_t n);

// Whether this CPU runs the vectorised paths (for tests and benchmarks to say which path they measured).
bool HostHalfSimdAvailable(DataType type);

// The instruction sets, for tests that check each path against the element-wise one. kBest is what the functions
// above use: AVX-512 where the CPU has it, else AVX2.
enum class HalfSimd { kBest, kAvx2, kAvx512 };
bool HostHalfSimdAvailable(HalfSimd level);
bool HostReduceHalves(HalfSimd level, ReduceOp op, Float16* dst, const Float16* a, const Float16* b, size_t n);
bool HostReduceHalves(HalfSimd level, ReduceOp op, Bfloat16* dst, const Bfloat16* a, const Bfloat16* b, size_t n);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_KERNELS_HALF_SIMD_H_
