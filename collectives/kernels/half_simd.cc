#include "collectives/kernels/half_simd.h"

// Not under nvcc (a CUDA build compiles every source with it): its front end need not parse the AVX-512 headers.
#if (defined(__x86_64__) || defined(__i386__)) && !defined(__CUDACC__)
#include <immintrin.h>
#define KCOLL_HALF_SIMD_X86 1
// GCC 12's AVX-512 intrinsics start from _mm512_undefined_epi32(), which its own -Wmaybe-uninitialized flags in
// every caller: a false positive about the headers, silenced for this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include "collectives/kernels/element_ops.h"

namespace kcoll {
namespace {

// The element-wise tail (and the reference the vector loops match).
template <class Half, ReduceOp Op>
void Tail(Half* dst, const Half* a, const Half* b, size_t from, size_t n) {
  for (size_t i = from; i < n; ++i) dst[i] = Combine<Half, Op>(a[i], b[i]);
}

#if defined(KCOLL_HALF_SIMD_X86)

bool CpuHas(bool f16c) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  static const bool has_f16c = __builtin_cpu_supports("f16c");
  return avx2 && (!f16c || has_f16c);
}

// AVX-512 (F and BW) doubles the elements per instruction; preferred where the CPU has it.
bool CpuHasAvx512() {
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  return has;
}

template <bool kProd>
__attribute__((target("avx512f,avx512bw,f16c"))) void Float16Avx512(Float16* dst, const Float16* a, const Float16* b,
                                                                    size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 x = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i)));
    const __m512 y = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i)));
    const __m512 z = kProd ? _mm512_mul_ps(x, y) : _mm512_add_ps(x, y);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm512_cvtps_ph(z, _MM_FROUND_TO_NEAREST_INT));
  }
  Tail<Float16, kProd ? ReduceOp::kProd : ReduceOp::kSum>(dst, a, b, i, n);
}

// As Bfloat16Avx2 below, 32 elements at a time, the NaN lanes chosen with a mask register.
template <bool kProd>
__attribute__((target("avx512f,avx512bw"))) void Bfloat16Avx512(Bfloat16* dst, const Bfloat16* a, const Bfloat16* b,
                                                                size_t n) {
  const __m512i zero = _mm512_setzero_si512(), one = _mm512_set1_epi32(1), round = _mm512_set1_epi32(0x7fff);
  const __m512i magnitude = _mm512_set1_epi32(0x7fffffff), infinity = _mm512_set1_epi32(0x7f800000);
  const __m512i quiet = _mm512_set1_epi32(0x40);
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512i va = _mm512_loadu_si512(a + i), vb = _mm512_loadu_si512(b + i);
    __m512i halves[2];
    for (int high = 0; high < 2; ++high) {
      const __m512 x = _mm512_castsi512_ps(high ? _mm512_unpackhi_epi16(zero, va) : _mm512_unpacklo_epi16(zero, va));
      const __m512 y = _mm512_castsi512_ps(high ? _mm512_unpackhi_epi16(zero, vb) : _mm512_unpacklo_epi16(zero, vb));
      const __m512i u = _mm512_castps_si512(kProd ? _mm512_mul_ps(x, y) : _mm512_add_ps(x, y));
      const __m512i lowest_kept = _mm512_and_si512(_mm512_srli_epi32(u, 16), one);
      const __m512i rounded = _mm512_srli_epi32(_mm512_add_epi32(u, _mm512_add_epi32(round, lowest_kept)), 16);
      const __mmask16 is_nan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(u, magnitude), infinity);
      halves[high] = _mm512_mask_mov_epi32(rounded, is_nan, _mm512_or_si512(_mm512_srli_epi32(u, 16), quiet));
    }
    _mm512_storeu_si512(dst + i, _mm512_packus_epi32(halves[0], halves[1]));
  }
  Tail<Bfloat16, kProd ? ReduceOp::kProd : ReduceOp::kSum>(dst, a, b, i, n);
}

template <bool kProd>
__attribute__((target("avx2,f16c"))) void Float16Avx2(Float16* dst, const Float16* a, const Float16* b, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 x = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)));
    const __m256 y = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i)));
    const __m256 z = kProd ? _mm256_mul_ps(x, y) : _mm256_add_ps(x, y);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm256_cvtps_ph(z, _MM_FROUND_TO_NEAREST_INT));
  }
  Tail<Float16, kProd ? ReduceOp::kProd : ReduceOp::kSum>(dst, a, b, i, n);
}

// bfloat16 bits to float bits in 32-bit lanes: element e goes to the upper half of a lane. The low unpack takes
// elements 0-3 of each 128-bit half, the high unpack elements 4-7, so packing their results back (below) restores
// the order without a cross-lane permute.
__attribute__((target("avx2"))) inline __m256 UpperHalves(__m256i zero, __m256i v, bool high) {
  return _mm256_castsi256_ps(high ? _mm256_unpackhi_epi16(zero, v) : _mm256_unpacklo_epi16(zero, v));
}

// Float bits to bfloat16 bits (in the lower half of each lane), rounding as ToBfloat16 does: add 0x7fff plus the
// lowest kept bit and keep the upper half; a NaN keeps its upper half with the quiet bit set.
__attribute__((target("avx2"))) inline __m256i Narrow(__m256i u) {
  const __m256i one = _mm256_set1_epi32(1), round = _mm256_set1_epi32(0x7fff);
  const __m256i magnitude = _mm256_set1_epi32(0x7fffffff), infinity = _mm256_set1_epi32(0x7f800000);
  const __m256i lowest_kept = _mm256_and_si256(_mm256_srli_epi32(u, 16), one);
  const __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(u, _mm256_add_epi32(round, lowest_kept)), 16);
  const __m256i is_nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, magnitude), infinity);
  const __m256i nan = _mm256_or_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x40));
  return _mm256_blendv_epi8(rounded, nan, is_nan);
}

template <bool kProd>
__attribute__((target("avx2"))) void Bfloat16Avx2(Bfloat16* dst, const Bfloat16* a, const Bfloat16* b, size_t n) {
  const __m256i zero = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i va = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i));
    const __m256i vb = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i));
    __m256i halves[2];
    for (int high = 0; high < 2; ++high) {
      const __m256 x = UpperHalves(zero, va, high), y = UpperHalves(zero, vb, high);
      halves[high] = Narrow(_mm256_castps_si256(kProd ? _mm256_mul_ps(x, y) : _mm256_add_ps(x, y)));
    }
    // Every lane is < 2^16, so the unsigned-saturating pack is exact.
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_packus_epi32(halves[0], halves[1]));
  }
  Tail<Bfloat16, kProd ? ReduceOp::kProd : ReduceOp::kSum>(dst, a, b, i, n);
}

#endif  // KCOLL_HALF_SIMD_X86

}  // namespace

bool HostHalfSimdAvailable(HalfSimd level) {
#if defined(KCOLL_HALF_SIMD_X86)
  return CpuHas(/*f16c=*/true) && (level != HalfSimd::kAvx512 || CpuHasAvx512());
#else
  (void)level;
  return false;
#endif
}

bool HostHalfSimdAvailable(DataType type) {
#if defined(KCOLL_HALF_SIMD_X86)
  if (type == DataType::kFloat16) return CpuHas(/*f16c=*/true);
  if (type == DataType::kBfloat16) return CpuHas(/*f16c=*/false);
#endif
  (void)type;
  return false;
}

#if defined(KCOLL_HALF_SIMD_X86)
namespace {

// The vector loops of one 16-bit type: [0] sum, [1] product, per instruction set.
template <class Half>
struct HalfLoops {
  using Loop = void (*)(Half*, const Half*, const Half*, size_t);
  bool needs_f16c;
  Loop avx2[2];
  Loop avx512[2];
};

const HalfLoops<Float16> kFloat16Loops{
    /*needs_f16c=*/true, {&Float16Avx2<false>, &Float16Avx2<true>}, {&Float16Avx512<false>, &Float16Avx512<true>}};
const HalfLoops<Bfloat16> kBfloat16Loops{
    /*needs_f16c=*/false, {&Bfloat16Avx2<false>, &Bfloat16Avx2<true>}, {&Bfloat16Avx512<false>, &Bfloat16Avx512<true>}};

template <class Half>
bool RunLoop(const HalfLoops<Half>& loops, HalfSimd level, ReduceOp op, Half* dst, const Half* a, const Half* b,
             size_t n) {
  if (!CpuHas(loops.needs_f16c) || (level == HalfSimd::kAvx512 && !CpuHasAvx512())) return false;
  if (op != ReduceOp::kSum && op != ReduceOp::kAvg && op != ReduceOp::kProd) return false;
  const bool wide = level == HalfSimd::kAvx512 || (level == HalfSimd::kBest && CpuHasAvx512());
  (wide ? loops.avx512 : loops.avx2)[op == ReduceOp::kProd ? 1 : 0](dst, a, b, n);
  return true;
}

}  // namespace
#endif  // KCOLL_HALF_SIMD_X86

bool HostReduceHalves(HalfSimd level, ReduceOp op, Float16* dst, const Float16* a, const Float16* b, size_t n) {
#if defined(KCOLL_HALF_SIMD_X86)
  return RunLoop(kFloat16Loops, level, op, dst, a, b, n);
#else
  (void)level, (void)op, (void)dst, (void)a, (void)b, (void)n;
  return false;
#endif
}

bool HostReduceHalves(HalfSimd level, ReduceOp op, Bfloat16* dst, const Bfloat16* a, const Bfloat16* b, size_t n) {
#if defined(KCOLL_HALF_SIMD_X86)
  return RunLoop(kBfloat16Loops, level, op, dst, a, b, n);
#else
  (void)level, (void)op, (void)dst, (void)a, (void)b, (void)n;
  return false;
#endif
}

bool HostReduceHalves(ReduceOp op, Float16* dst, const Float16* a, const Float16* b, size_t n) {
  return HostReduceHalves(HalfSimd::kBest, op, dst, a, b, n);
}

bool HostReduceHalves(ReduceOp op, Bfloat16* dst, const Bfloat16* a, const Bfloat16* b, size_t n) {
  return HostReduceHalves(HalfSimd::kBest, op, dst, a, b, n);
}

}  // namespace kcoll
