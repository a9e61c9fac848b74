// 16-bit floating-point storage types, exchanged as NCCL does (IEEE binary16 and bfloat16 bit layouts), computed in
// float. Conversions round to nearest even. Device-safe: no std:: calls, usable inside Kokkos kernels.
#ifndef KCOLL_BASE_HALF_H_
#define KCOLL_BASE_HALF_H_

#include <cstdint>

#include "base/portability.h"

namespace kcoll {

struct Float16 {
  uint16_t bits;
};

struct Bfloat16 {
  uint16_t bits;
};

namespace half_internal {

KCOLL_INLINE_FUNCTION uint32_t BitsOf(float f) { return BitCast<uint32_t>(f); }
KCOLL_INLINE_FUNCTION float FloatOf(uint32_t u) { return BitCast<float>(u); }

}  // namespace half_internal

// On a GPU, finite values convert with the conversion instructions (exact, and rounding to nearest even as the
// code below does): the code below costs some twenty integer instructions per element, which made a float16 sum
// on an H200 run at 60% of the memory bandwidth a bfloat16 sum reaches. NaN and infinity keep the code below, so
// that their bits are the same on every backend.
KCOLL_INLINE_FUNCTION float ToFloat(Float16 h) {
#if defined(__CUDA_ARCH__)
  if ((h.bits & 0x7c00u) != 0x7c00u) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.bits));
    return f;
  }
#endif
  const uint32_t sign = static_cast<uint32_t>(h.bits & 0x8000u) << 16;
  const uint32_t exponent = (h.bits >> 10) & 0x1fu;
  const uint32_t mantissa = h.bits & 0x3ffu;
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24 is exact in float.
    const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-08f;
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31) return half_internal::FloatOf(sign | 0x7f800000u | (mantissa << 13));
  return half_internal::FloatOf(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

KCOLL_INLINE_FUNCTION Float16 ToFloat16(float f) {
  const uint32_t x = half_internal::BitsOf(f);
#if defined(__CUDA_ARCH__)
  if ((x & 0x7fffffffu) < 0x7f800000u) {
    uint16_t bits;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(f));
    return Float16{bits};
  }
#endif
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t exponent = (x >> 23) & 0xffu;
  uint32_t mantissa = x & 0x7fffffu;
  if (exponent == 0xff) {  // inf stays inf, NaN stays a (quiet) NaN
    return Float16{static_cast<uint16_t>(sign | 0x7c00u | (mantissa ? 0x200u | (mantissa >> 13) : 0u))};
  }
  const int e = static_cast<int>(exponent) - 127 + 15;
  if (e >= 31) return Float16{static_cast<uint16_t>(sign | 0x7c00u)};  // overflow to inf
  if (e <= 0) {
    if (e < -10) return Float16{sign};  // below half the smallest subnormal: signed zero
    mantissa |= 0x800000u;
    const int shift = 14 - e;
    uint32_t h = mantissa >> shift;
    const uint32_t remainder = mantissa & ((1u << shift) - 1u);
    const uint32_t halfway = 1u << (shift - 1);
    if (remainder > halfway || (remainder == halfway && (h & 1u))) ++h;
    return Float16{static_cast<uint16_t>(sign | h)};
  }
  uint32_t h = (static_cast<uint32_t>(e) << 10) | (mantissa >> 13);
  const uint32_t remainder = mantissa & 0x1fffu;
  if (remainder > 0x1000u || (remainder == 0x1000u && (h & 1u))) ++h;  // a carry rolls into the exponent
  return Float16{static_cast<uint16_t>(sign | h)};
}

KCOLL_INLINE_FUNCTION float ToFloat(Bfloat16 h) { return half_internal::FloatOf(static_cast<uint32_t>(h.bits) << 16); }

KCOLL_INLINE_FUNCTION Bfloat16 ToBfloat16(float f) {
  const uint32_t x = half_internal::BitsOf(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return Bfloat16{static_cast<uint16_t>((x >> 16) | 0x40u)};  // quiet NaN
  const uint32_t rounded = x + 0x7fffu + ((x >> 16) & 1u);
  return Bfloat16{static_cast<uint16_t>(rounded >> 16)};
}

// ToFloat16 and ToBfloat16 by the type they make, and float itself both ways, for code written once for each.
KCOLL_INLINE_FUNCTION float ToFloat(float f) { return f; }
template <class T>
KCOLL_INLINE_FUNCTION T FromFloat(float f);
template <>
KCOLL_INLINE_FUNCTION float FromFloat<float>(float f) {
  return f;
}
template <>
KCOLL_INLINE_FUNCTION Float16 FromFloat<Float16>(float f) {
  return ToFloat16(f);
}
template <>
KCOLL_INLINE_FUNCTION Bfloat16 FromFloat<Bfloat16>(float f) {
  return ToBfloat16(f);
}

}  // namespace kcoll

#endif  // KCOLL_BASE_HALF_H_
