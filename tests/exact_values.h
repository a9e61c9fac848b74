// Test inputs whose reductions are exact in every kcoll data type: small integers, encoded into each storage type,
// and read back as double. Expected results are computed in double from these integers, independently of the
// kernels under test.
#ifndef KCOLL_TESTS_EXACT_VALUES_H_
#define KCOLL_TESTS_EXACT_VALUES_H_

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "base/types.h"
#include "collectives/kernels/element_ops.h"
#include "collectives/kernels/reference_values.h"

namespace kcoll {
namespace testing {

using reference::Decode;
using reference::DecodeAt;
using reference::Encode;
using reference::EncodeAt;
using reference::IsInteger;
using reference::IsSigned;

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
  return reference::ReduceOverRanks(type, op, nranks, [&](int r) { return ExactInput(type, op, r, i); });
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
