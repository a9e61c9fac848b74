// The 16-byte-pack reduction that device memory runs, executed here by a plain loop over its indices: every
// element of every head / pack / tail split, at every offset from a 16-byte boundary, compared bit for bit with the
// element-wise reduction, and nothing outside the range written.
#include "collectives/kernels/packed_reduce.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "base/half.h"
#include "gtest/gtest.h"

namespace kcoll {
namespace {

constexpr uint8_t kPoison = 0xa5;

// Small exact values: sums and products of two of them are exact in every type.
template <class T>
T Value(int i) {
  if constexpr (std::is_same<T, Float16>::value) {
    return ToFloat16(static_cast<float>(i % 7 + 1));
  } else if constexpr (std::is_same<T, Bfloat16>::value) {
    return ToBfloat16(static_cast<float>(i % 7 + 1));
  } else {
    return static_cast<T>(i % 7 + 1);
  }
}

template <class T, ReduceOp Op>
void CheckEverySplit() {
  using F = PackedReduceFunctor<T, Op>;
  constexpr int kMax = 3 * F::kLanes + 5;
  for (int offset = 0; offset < 16 / static_cast<int>(sizeof(T)); ++offset) {
    for (int n = 0; n <= kMax; ++n) {
      // 16-byte aligned storage with one pack of guard before and after.
      alignas(16) uint8_t a_mem[2 * kMax * 16], b_mem[2 * kMax * 16], dst_mem[2 * kMax * 16];
      std::memset(dst_mem, kPoison, sizeof(dst_mem));
      T* a = reinterpret_cast<T*>(a_mem + 16) + offset;
      T* b = reinterpret_cast<T*>(b_mem + 16) + offset;
      T* dst = reinterpret_cast<T*>(dst_mem + 16) + offset;
      for (int i = 0; i < n; ++i) {
        a[i] = Value<T>(i);
        b[i] = Value<T>(3 * i + 1);
      }
      const F f = F::Over(dst, a, b, n);
      const int64_t expected_head = std::min<int64_t>(n, (F::kLanes - offset) % F::kLanes);
      EXPECT_EQ(f.head, expected_head) << "offset " << offset << " n " << n;
      EXPECT_EQ(f.packs, (n - f.head) / F::kLanes);
      for (int64_t i = 0; i < f.Indices(n); ++i) f(i);
      for (int i = 0; i < n; ++i) {
        const T want = Combine<T, Op>(a[i], b[i]);
        ASSERT_EQ(std::memcmp(&dst[i], &want, sizeof(T)), 0) << "offset " << offset << " n " << n << " element " << i;
      }
      const uint8_t* begin = reinterpret_cast<const uint8_t*>(dst);
      for (const uint8_t* p = dst_mem; p < begin; ++p) ASSERT_EQ(*p, kPoison) << "written before the range";
      for (const uint8_t* p = begin + n * sizeof(T); p < dst_mem + sizeof(dst_mem); ++p) {
        ASSERT_EQ(*p, kPoison) << "written after the range, offset " << offset << " n " << n;
      }
    }
  }
}

TEST(PackedReduceFunctor, EveryHeadPackAndTailSplitMatchesTheElementWiseReduction) {
  CheckEverySplit<float, ReduceOp::kSum>();
  CheckEverySplit<int32_t, ReduceOp::kMax>();
  CheckEverySplit<Float16, ReduceOp::kSum>();
  CheckEverySplit<Bfloat16, ReduceOp::kProd>();
  CheckEverySplit<int8_t, ReduceOp::kMin>();
  CheckEverySplit<double, ReduceOp::kSum>();
}

TEST(PackedReduceFunctor, ArraysAtDifferentOffsetsFromA16ByteBoundaryGetNoPacks) {
  alignas(16) float a[64], b[64], dst[64];
  EXPECT_GT((PackedReduceFunctor<float, ReduceOp::kSum>::Over(dst, a, b, 60).packs), 0);
  EXPECT_EQ((PackedReduceFunctor<float, ReduceOp::kSum>::Over(dst + 1, a, b, 60).packs), 0);
  EXPECT_EQ((PackedReduceFunctor<float, ReduceOp::kSum>::Over(dst, a, b + 2, 60).packs), 0);
  // The same offset everywhere: a head of 3 elements, then packs.
  const auto f = PackedReduceFunctor<float, ReduceOp::kSum>::Over(dst + 1, a + 1, b + 1, 60);
  EXPECT_EQ(f.head, 3);
  EXPECT_EQ(f.packs, 14);
}

}  // namespace
}  // namespace kcoll
