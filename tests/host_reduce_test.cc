// HostReduceInOrder, the inline lane's fold: on seeded rounding-sensitive data (wide exponents, cancellation), every
// element must combine its inputs in input order, bit for bit as a plain element-at-a-time loop written here does,
// for 1 to 9 inputs and counts on both sides of the fold's blocks, out of place and with `out` one of the inputs.
// The data can show an order change: the same inputs folded in reverse order give other bits (checked).
#include "collectives/kernels/host_reduce.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "base/half.h"
#include "gtest/gtest.h"

namespace kcoll {
namespace {

// Values spread over 2^-20 .. 2^20 with random signs: sums of them round at every step and cancel.
template <class T>
std::vector<std::vector<T>> RoundingSensitiveInputs(int n, size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-20, 20), sign(0, 1);
  std::vector<std::vector<T>> inputs(n, std::vector<T>(count));
  for (auto& input : inputs) {
    for (T& v : input) {
      const double x = std::ldexp(mantissa(rng), exponent(rng)) * (sign(rng) ? -1.0 : 1.0);
      if constexpr (std::is_same<T, Float16>::value) {
        v = ToFloat16(static_cast<float>(x / 64));  // within half's range
      } else {
        v = static_cast<T>(x);
      }
    }
  }
  return inputs;
}

// The reference: element by element, inputs in `order`, 16-bit floats accumulated in float and rounded once.
template <class T>
std::vector<T> FoldElementwise(const std::vector<std::vector<T>>& inputs, const std::vector<int>& order, bool max) {
  const size_t count = inputs[0].size();
  std::vector<T> out(count);
  for (size_t i = 0; i < count; ++i) {
    if constexpr (std::is_same<T, Float16>::value) {
      float acc = ToFloat(inputs[order[0]][i]);
      for (size_t k = 1; k < order.size(); ++k) acc = acc + ToFloat(inputs[order[k]][i]);
      out[i] = ToFloat16(acc);
    } else {
      T acc = inputs[order[0]][i];
      for (size_t k = 1; k < order.size(); ++k) {
        const T x = inputs[order[k]][i];
        acc = max ? (x > acc ? x : acc) : acc + x;
      }
      out[i] = acc;
    }
  }
  return out;
}

template <class T>
void ExpectInOrder(DataType type, ReduceOp op) {
  const bool max = op == ReduceOp::kMax;
  bool some_order_differs = false;
  for (int n = 1; n <= 9; ++n) {
    for (size_t count : {1, 2, 7, 8, 63, 64, 65, 128, 200, 1024}) {  // one at a time below 8, blocks of 64 above
      const auto inputs = RoundingSensitiveInputs<T>(n, count, static_cast<uint32_t>(n * 1000 + count));
      std::vector<int> order(n), reversed(n);
      for (int r = 0; r < n; ++r) order[r] = r, reversed[r] = n - 1 - r;
      const std::vector<T> expected = FoldElementwise(inputs, order, max);
      const std::vector<T> backwards = FoldElementwise(inputs, reversed, max);
      if (std::memcmp(backwards.data(), expected.data(), count * sizeof(T)) != 0) some_order_differs = true;
      for (int out_is = -1; out_is < n; ++out_is) {  // -1: a buffer apart; else that input
        auto work = inputs;
        std::vector<const unsigned char*> pointers;
        for (const auto& input : work) pointers.push_back(reinterpret_cast<const unsigned char*>(input.data()));
        std::vector<T> apart(count);
        T* out = out_is < 0 ? apart.data() : work[out_is].data();
        ASSERT_TRUE(HostReduceInOrder(op, type, out, pointers.data(), n, count));
        EXPECT_EQ(std::memcmp(out, expected.data(), count * sizeof(T)), 0)
            << "n " << n << " count " << count << " out " << out_is;
      }
      // The fold found once (the repeated inline calls'), on a buffer apart: the same bits.
      const HostFoldFn fold = HostFoldInOrderFor(op, type);
      ASSERT_NE(fold, nullptr);
      std::vector<const unsigned char*> pointers;
      for (const auto& input : inputs) pointers.push_back(reinterpret_cast<const unsigned char*>(input.data()));
      std::vector<T> found(count);
      fold(reinterpret_cast<unsigned char*>(found.data()), pointers.data(), n, count);
      EXPECT_EQ(std::memcmp(found.data(), expected.data(), count * sizeof(T)), 0) << "n " << n << " count " << count;
    }
  }
  if (!max) {
    EXPECT_TRUE(some_order_differs) << "the data cannot show an order change";
  }
}

TEST(HostReduceInOrder, Float32SumInInputOrder) { ExpectInOrder<float>(DataType::kFloat32, ReduceOp::kSum); }
TEST(HostReduceInOrder, Float64SumInInputOrder) { ExpectInOrder<double>(DataType::kFloat64, ReduceOp::kSum); }
TEST(HostReduceInOrder, Float16SumAccumulatesInFloat) { ExpectInOrder<Float16>(DataType::kFloat16, ReduceOp::kSum); }
TEST(HostReduceInOrder, Float64Max) { ExpectInOrder<double>(DataType::kFloat64, ReduceOp::kMax); }

TEST(HostReduceInOrder, RefusesAnInvalidTypeOrOp) {
  float a = 1, out = 0;
  const unsigned char* inputs[] = {reinterpret_cast<const unsigned char*>(&a)};
  EXPECT_FALSE(HostReduceInOrder(static_cast<ReduceOp>(99), DataType::kFloat32, &out, inputs, 1, 1));
  EXPECT_FALSE(HostReduceInOrder(ReduceOp::kSum, static_cast<DataType>(99), &out, inputs, 1, 1));
  EXPECT_EQ(HostFoldInOrderFor(static_cast<ReduceOp>(99), DataType::kFloat32), nullptr);
  EXPECT_EQ(HostFoldInOrderFor(ReduceOp::kSum, static_cast<DataType>(99)), nullptr);
}

}  // namespace
}  // namespace kcoll
