// The vectorised 16-bit reductions (collectives/kernels/half_simd.h) against the element-wise ones, bit for bit
// (NaN results: NaN):
// every one of the 65536 values of `a` against a spread of `b` values (zeros, subnormals, the largest finite,
// infinities, NaNs, and a stride through everything), sum and product, each instruction set this CPU has, odd
// lengths (the tails), and in place.
#include "collectives/kernels/half_simd.h"

#include <cstdint>
#include <cstdio>
#include <vector>

#include "collectives/kernels/element_ops.h"
#include "gtest/gtest.h"

namespace kcoll {
namespace {

template <class Half>
std::vector<uint16_t> SpreadOfB() {
  std::vector<uint16_t> b = {0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00,
                             0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe01, 0x3f80,
                             0x7f7f, 0x7f80, 0x7fc0, 0x7f81, 0x0080, 0x8080, 0x3555, 0x4000};
  for (uint32_t v = 7; v < 65536; v += 997) b.push_back(static_cast<uint16_t>(v));
  return b;
}

bool IsNan(Float16 h) { return (h.bits & 0x7c00) == 0x7c00 && (h.bits & 0x03ff) != 0; }
bool IsNan(Bfloat16 h) { return (h.bits & 0x7f80) == 0x7f80 && (h.bits & 0x007f) != 0; }

template <class Half, ReduceOp Op>
void CheckEveryA(HalfSimd level) {
  const std::vector<uint16_t> bs = SpreadOfB<Half>();
  const size_t n = 65536 + 13;  // not a multiple of any vector width: the tail runs too
  std::vector<Half> a(n), b(n), got(n), in_place(n);
  for (uint16_t bv : bs) {
    for (size_t i = 0; i < n; ++i) {
      a[i] = Half{static_cast<uint16_t>(i)};
      b[i] = Half{bv};
    }
    ASSERT_TRUE(HostReduceHalves(level, Op, got.data(), a.data(), b.data(), n));
    in_place = a;
    ASSERT_TRUE(HostReduceHalves(level, Op, in_place.data(), in_place.data(), b.data(), n));
    for (size_t i = 0; i < n; ++i) {
      const Half want = Combine<Half, Op>(a[i], b[i]);
      if (IsNan(want)) {
        // Which operand's payload a NaN result carries when both are NaN depends on the order the compiler gave
        // the element-wise addition's operands: a NaN is what is promised.
        ASSERT_TRUE(IsNan(got[i]) && IsNan(in_place[i])) << "a 0x" << std::hex << a[i].bits << " b 0x" << bv;
        continue;
      }
      ASSERT_EQ(got[i].bits, want.bits) << "a 0x" << std::hex << a[i].bits << " b 0x" << bv;
      ASSERT_EQ(in_place[i].bits, want.bits) << "in place: a 0x" << std::hex << a[i].bits << " b 0x" << bv;
    }
  }
}

class HalfSimdTest : public ::testing::TestWithParam<HalfSimd> {
 protected:
  void SetUp() override {
    if (!HostHalfSimdAvailable(GetParam())) GTEST_SKIP() << "this CPU lacks the instruction set";
  }
};

TEST_P(HalfSimdTest, Float16SumMatchesElementWise) { CheckEveryA<Float16, ReduceOp::kSum>(GetParam()); }
TEST_P(HalfSimdTest, Float16ProdMatchesElementWise) { CheckEveryA<Float16, ReduceOp::kProd>(GetParam()); }
TEST_P(HalfSimdTest, Bfloat16SumMatchesElementWise) { CheckEveryA<Bfloat16, ReduceOp::kSum>(GetParam()); }
TEST_P(HalfSimdTest, Bfloat16ProdMatchesElementWise) { CheckEveryA<Bfloat16, ReduceOp::kProd>(GetParam()); }

INSTANTIATE_TEST_SUITE_P(InstructionSets, HalfSimdTest, ::testing::Values(HalfSimd::kAvx2, HalfSimd::kAvx512));

TEST(HalfSimd, OtherOpsAreLeftToTheElementWisePath) {
  Float16 a{0x3c00}, b{0x4000}, dst{0};
  EXPECT_FALSE(HostReduceHalves(ReduceOp::kMax, &dst, &a, &b, 1));
  EXPECT_FALSE(HostReduceHalves(ReduceOp::kMin, &dst, &a, &b, 1));
  EXPECT_EQ(dst.bits, 0);
}

}  // namespace
}  // namespace kcoll
