// Per-element arithmetic for every kcoll data type: how a stored element is combined with another under each
// ReduceOp, and how an average is finished. Device-safe (see README.md). Shared by the Kokkos functors and by the
// host reference used in tests, so both define "the right answer" identically.
//
// Integer sum and product wrap modulo 2^bits (computed in the unsigned type, so signed overflow is defined);
// 16-bit floats are widened to float, combined, and rounded back to nearest even.
#ifndef KCOLL_COLLECTIVES_KERNELS_ELEMENT_OPS_H_
#define KCOLL_COLLECTIVES_KERNELS_ELEMENT_OPS_H_

#include <cstdint>
#include <type_traits>

#include "base/half.h"
#include "base/portability.h"
#include "base/types.h"

namespace kcoll {

template <class T>
struct UnsignedOf {
  using type = T;  // floating point: no wrap-around concerns
};
template <>
struct UnsignedOf<int8_t> {
  using type = uint8_t;
};
template <>
struct UnsignedOf<int32_t> {
  using type = uint32_t;
};
template <>
struct UnsignedOf<int64_t> {
  using type = uint64_t;
};

// Arithmetic on types the compiler computes in directly (integers, float, double).
template <class T>
struct ElementOps {
  using Unsigned = typename UnsignedOf<T>::type;
  KCOLL_INLINE_FUNCTION static T Sum(T a, T b) {
    return static_cast<T>(static_cast<Unsigned>(static_cast<Unsigned>(a) + static_cast<Unsigned>(b)));
  }
  KCOLL_INLINE_FUNCTION static T Prod(T a, T b) {
    // uint8 * uint8 promotes to int; go through the widest unsigned type so the product never overflows signed int.
    return static_cast<T>(static_cast<Unsigned>(Widen(a) * Widen(b)));
  }
  KCOLL_INLINE_FUNCTION static T Min(T a, T b) { return b < a ? b : a; }
  KCOLL_INLINE_FUNCTION static T Max(T a, T b) { return a < b ? b : a; }
  KCOLL_INLINE_FUNCTION static T Divide(T a, int divisor) { return static_cast<T>(a / static_cast<T>(divisor)); }

 private:
  template <class U = T>
  KCOLL_INLINE_FUNCTION static auto Widen(U v) ->
      typename std::conditional<std::is_integral<U>::value, uint64_t, U>::type {
    using W = typename std::conditional<std::is_integral<U>::value, uint64_t, U>::type;
    return static_cast<W>(static_cast<Unsigned>(v));
  }
};

// 16-bit floats: widen to float, compute, round back.
template <class Half, Half (*Narrow)(float)>
struct HalfElementOps {
  KCOLL_INLINE_FUNCTION static Half Sum(Half a, Half b) { return Narrow(ToFloat(a) + ToFloat(b)); }
  KCOLL_INLINE_FUNCTION static Half Prod(Half a, Half b) { return Narrow(ToFloat(a) * ToFloat(b)); }
  KCOLL_INLINE_FUNCTION static Half Min(Half a, Half b) { return ToFloat(b) < ToFloat(a) ? b : a; }
  KCOLL_INLINE_FUNCTION static Half Max(Half a, Half b) { return ToFloat(a) < ToFloat(b) ? b : a; }
  KCOLL_INLINE_FUNCTION static Half Divide(Half a, int divisor) {
    return Narrow(ToFloat(a) / static_cast<float>(divisor));
  }
};

template <>
struct ElementOps<Float16> : HalfElementOps<Float16, ToFloat16> {};
template <>
struct ElementOps<Bfloat16> : HalfElementOps<Bfloat16, ToBfloat16> {};

// Combine two elements under `Op`. kAvg combines as a sum; the division happens once, at the end.
template <class T, ReduceOp Op>
KCOLL_INLINE_FUNCTION T Combine(T a, T b) {
  if (Op == ReduceOp::kProd) return ElementOps<T>::Prod(a, b);
  if (Op == ReduceOp::kMin) return ElementOps<T>::Min(a, b);
  if (Op == ReduceOp::kMax) return ElementOps<T>::Max(a, b);
  return ElementOps<T>::Sum(a, b);
}

// What a fold of many terms (Kernels::FoldInOrder, HostReduceInOrder) accumulates in: 16-bit floats in float, rounded
// to 16 bits once when the fold ends; every other type in itself.
template <class T>
struct AccumulatorOf {
  using type = T;
  KCOLL_INLINE_FUNCTION static T Widen(T v) { return v; }
  KCOLL_INLINE_FUNCTION static T Narrow(T v) { return v; }
};
template <>
struct AccumulatorOf<Float16> {
  using type = float;
  KCOLL_INLINE_FUNCTION static float Widen(Float16 v) { return ToFloat(v); }
  KCOLL_INLINE_FUNCTION static Float16 Narrow(float v) { return ToFloat16(v); }
};
template <>
struct AccumulatorOf<Bfloat16> {
  using type = float;
  KCOLL_INLINE_FUNCTION static float Widen(Bfloat16 v) { return ToFloat(v); }
  KCOLL_INLINE_FUNCTION static Bfloat16 Narrow(float v) { return ToBfloat16(v); }
};

// Calls `f.template operator()<T>()` with T the storage type of `type`; returns false for an invalid type.
template <class F>
bool DispatchDataType(DataType type, F&& f) {
  switch (type) {
    case DataType::kInt8:
      f.template operator()<int8_t>();
      return true;
    case DataType::kUint8:
      f.template operator()<uint8_t>();
      return true;
    case DataType::kInt32:
      f.template operator()<int32_t>();
      return true;
    case DataType::kUint32:
      f.template operator()<uint32_t>();
      return true;
    case DataType::kInt64:
      f.template operator()<int64_t>();
      return true;
    case DataType::kUint64:
      f.template operator()<uint64_t>();
      return true;
    case DataType::kFloat16:
      f.template operator()<Float16>();
      return true;
    case DataType::kBfloat16:
      f.template operator()<Bfloat16>();
      return true;
    case DataType::kFloat32:
      f.template operator()<float>();
      return true;
    case DataType::kFloat64:
      f.template operator()<double>();
      return true;
  }
  return false;
}

// Calls `f(std::integral_constant<ReduceOp, Op>())` with Op the compile-time form of `op` (kAvg combines as kSum:
// its division is the caller's); returns false for an op out of range.
template <class F>
bool DispatchReduceOp(ReduceOp op, F&& f) {
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kAvg:
      f(std::integral_constant<ReduceOp, ReduceOp::kSum>());
      return true;
    case ReduceOp::kProd:
      f(std::integral_constant<ReduceOp, ReduceOp::kProd>());
      return true;
    case ReduceOp::kMin:
      f(std::integral_constant<ReduceOp, ReduceOp::kMin>());
      return true;
    case ReduceOp::kMax:
      f(std::integral_constant<ReduceOp, ReduceOp::kMax>());
      return true;
  }
  return false;
}

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_KERNELS_ELEMENT_OPS_H_
