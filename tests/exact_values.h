// Test inputs whose reductions are exact in every kcoll data type: small integers, encoded into each storage type,
// and read back as double. Expected results are computed in double from these integers, independently of the
// kernels under test.
#ifndef KCOLL_TESTS_EXACT_VALUES_H_
#define KCOLL_TESTS_EXACT_VALUES_H_

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "collectives/kernels/element_ops.h"
#include "collectives/kernels/half.h"
#include "collectives/types.h"

namespace kcoll {
namespace testing {

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

// Writes element i of a buffer of `type` from a double (exactly representable by construction of the tests).
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

inline void EncodeAt(DataType type, void* buffer, size_t i, double v) {
  DispatchDataType(type, EncodeOne{buffer, i, v});
}

inline double DecodeAt(DataType type, const void* buffer, size_t i) {
  double out = 0;
  DispatchDataType(type, DecodeOne{buffer, i, &out});
  return out;
}

inline bool IsSigned(DataType type) {
  return !(type == DataType::kUint8 || type == DataType::kUint32 || type == DataType::kUint64);
}

inline bool IsInteger(DataType type) {
  return type != DataType::kFloat16 && type != DataType::kBfloat16 && type != DataType::kFloat32 &&
         type != DataType::kFloat64;
}

// The value rank `rank` contributes at element i under `op`, chosen so that reducing over up to 16 ranks is exact
// in every type: sums of values in [-3, 3] (signed) or [0, 7] (unsigned) stay below 128; products are of 1s, at most
// two 2s and some -1s per element, so they stay within [-4, 4].
inline double ExactInput(DataType type, ReduceOp op, int rank, size_t i) {
  const size_t k = i + static_cast<size_t>(rank);
  if (op == ReduceOp::kProd) {
    if (k % 8 == 0) return 2.0;
    return (k % 8 == 3 && IsSigned(type)) ? -1.0 : 1.0;
  }
  const size_t mixed = i * 3 + static_cast<size_t>(rank) * 5;
  return IsSigned(type) ? static_cast<double>(mixed % 7) - 3.0 : static_cast<double>(mixed % 8);
}

// What reducing ExactInput over ranks [0, nranks) gives at element i, computed in double.
inline double ExactReduction(DataType type, ReduceOp op, int nranks, size_t i) {
  double acc = ExactInput(type, op, 0, i);
  for (int r = 1; r < nranks; ++r) {
    const double v = ExactInput(type, op, r, i);
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
    // Integer types divide with truncation toward zero; floats divide exactly enough for the test's tolerance-free
    // comparison only when the quotient is representable, so float averages are compared through the same rounding.
    acc = IsInteger(type) ? static_cast<double>(static_cast<int64_t>(acc) / nranks) : acc / nranks;
  }
  return acc;
}

// What rank `rank` holds at element i for the collectives that only move data (AllGather, Broadcast, AllToAll,
// Gather, Scatter, SendRecv): small integers, exact in every type (|v| <= 48 signed, v <= 96 unsigned), that
// differ between neighbouring elements and ranks, so a block landing in the wrong place shows.
inline double PatternValue(DataType type, int rank, size_t i) {
  const size_t k = (static_cast<size_t>(rank) * 37 + i * 11) % 97;
  return IsSigned(type) ? static_cast<double>(k) - 48.0 : static_cast<double>(k);
}

// A value no collective result in these tests takes (ExactReduction stays within [-48, 112], PatternValue within
// [-48, 96]), to fill receive buffers with before a call: an element the call should have written but did not
// stays at it.
constexpr double kSentinel = 123.0;

// `count` elements of `type` with element i = value(i).
template <class ValueFn>
std::vector<char> MakeBuffer(DataType type, size_t count, ValueFn value) {
  std::vector<char> buffer(count * DataTypeSize(type));
  for (size_t i = 0; i < count; ++i) EncodeAt(type, buffer.data(), i, value(i));
  return buffer;
}

inline std::vector<char> SentinelBuffer(DataType type, size_t count) {
  return MakeBuffer(type, count, [](size_t) { return kSentinel; });
}

}  // namespace testing
}  // namespace kcoll

#endif  // KCOLL_TESTS_EXACT_VALUES_H_
