// Element values as double, for the oracles that check results bit for bit (the tests, the benchmark's -c check):
// each DataType's storage encoded from and decoded to double, and what each ReduceOp makes of the values of the
// ranks, computed in double, independently of the kernels under test. Exact as long as the values are small
// integers, which is how both oracles choose their inputs.
#ifndef KCOLL_COLLECTIVES_KERNELS_REFERENCE_VALUES_H_
#define KCOLL_COLLECTIVES_KERNELS_REFERENCE_VALUES_H_

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "base/half.h"
#include "base/types.h"
#include "collectives/kernels/element_ops.h"

namespace kcoll {
namespace reference {

template <class T>
T Encode(double v) {
  if constexpr (std::is_same<T, Float16>::value) {
    return ToFloat16(static_cast<float>(v));
  } else if constexpr (std::is_same<T, Bfloat16>::value) {
    return ToBfloat16(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

template <class T>
double Decode(T v) {
  if constexpr (std::is_same<T, Float16>::value || std::is_same<T, Bfloat16>::value) {
    return static_cast<double>(ToFloat(v));
  } else {
    return static_cast<double>(v);
  }
}

namespace internal {

struct EncodeOne {
  void* buffer;
  size_t i;
  double v;
  template <class T>
  void operator()() const {
    static_cast<T*>(buffer)[i] = Encode<T>(v);
  }
};

struct DecodeOne {
  const void* buffer;
  size_t i;
  double* out;
  template <class T>
  void operator()() const {
    *out = Decode<T>(static_cast<const T*>(buffer)[i]);
  }
};

}  // namespace internal

// Element i of a buffer of `type`, written from / read as a double.
inline void EncodeAt(DataType type, void* buffer, size_t i, double v) {
  DispatchDataType(type, internal::EncodeOne{buffer, i, v});
}

inline double DecodeAt(DataType type, const void* buffer, size_t i) {
  double out = 0;
  DispatchDataType(type, internal::DecodeOne{buffer, i, &out});
  return out;
}

inline bool IsSigned(DataType type) {
  return !(type == DataType::kUint8 || type == DataType::kUint32 || type == DataType::kUint64);
}

inline bool IsInteger(DataType type) {
  return type != DataType::kFloat16 && type != DataType::kBfloat16 && type != DataType::kFloat32 &&
         type != DataType::kFloat64;
}

// `op` over value_of_rank(0) ... value_of_rank(nranks - 1), in that order, in double; kAvg divides the sum by the
// ranks as the type does (integers truncate toward zero).
template <class ValueOfRank>
double ReduceOverRanks(DataType type, ReduceOp op, int nranks, ValueOfRank value_of_rank) {
  double acc = value_of_rank(0);
  for (int r = 1; r < nranks; ++r) {
    const double v = value_of_rank(r);
    switch (op) {
      case ReduceOp::kSum:
      case ReduceOp::kAvg:
        acc += v;
        break;
      case ReduceOp::kProd:
        acc *= v;
        break;
      case ReduceOp::kMin:
        acc = v < acc ? v : acc;
        break;
      case ReduceOp::kMax:
        acc = v > acc ? v : acc;
        break;
    }
  }
  if (op == ReduceOp::kAvg) {
    acc = IsInteger(type) ? static_cast<double>(static_cast<int64_t>(acc) / nranks) : acc / nranks;
  }
  return acc;
}

}  // namespace reference
}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_KERNELS_REFERENCE_VALUES_H_
