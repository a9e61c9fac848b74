#include "base/half.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "gtest/gtest.h"

namespace kcoll {
namespace {

TEST(Float16, KnownBitPatterns) {
  EXPECT_EQ(ToFloat16(0.0f).bits, 0x0000);
  EXPECT_EQ(ToFloat16(-0.0f).bits, 0x8000);
  EXPECT_EQ(ToFloat16(1.0f).bits, 0x3c00);
  EXPECT_EQ(ToFloat16(-2.0f).bits, 0xc000);
  EXPECT_EQ(ToFloat16(0.5f).bits, 0x3800);
  EXPECT_EQ(ToFloat16(65504.0f).bits, 0x7bff);               // largest finite
  EXPECT_EQ(ToFloat16(65520.0f).bits, 0x7c00);               // rounds up to inf
  EXPECT_EQ(ToFloat16(std::ldexp(1.0f, -24)).bits, 0x0001);  // smallest subnormal
  EXPECT_EQ(ToFloat16(std::ldexp(1.0f, -14)).bits, 0x0400);  // smallest normal
  EXPECT_EQ(ToFloat16(std::numeric_limits<float>::infinity()).bits, 0x7c00);
  EXPECT_EQ(ToFloat16(std::ldexp(1.0f, -26)).bits, 0x0000);  // below half the smallest subnormal
}

TEST(Float16, RoundsToNearestEven) {
  // 1 + 2^-11 is halfway between 1 and the next half (1 + 2^-10): ties go to the even mantissa (1.0).
  EXPECT_EQ(ToFloat16(1.0f + std::ldexp(1.0f, -11)).bits, 0x3c00);
  // 1 + 3*2^-11 is halfway between 1+2^-10 (odd) and 1+2^-9 (even): rounds up.
  EXPECT_EQ(ToFloat16(1.0f + 3 * std::ldexp(1.0f, -11)).bits, 0x3c02);
  // Just above halfway rounds up.
  EXPECT_EQ(ToFloat16(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)).bits, 0x3c01);
  // Subnormal tie: 1.5 * 2^-24 lies between 1 and 2 subnormal units, goes to the even one (2).
  EXPECT_EQ(ToFloat16(1.5f * std::ldexp(1.0f, -24)).bits, 0x0002);
}

TEST(Float16, RoundTripsEveryFiniteValue) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const Float16 h{static_cast<uint16_t>(bits)};
    if ((bits & 0x7c00) == 0x7c00 && (bits & 0x3ff) != 0) {
      EXPECT_TRUE(std::isnan(ToFloat(h))) << bits;
      continue;
    }
    ASSERT_EQ(ToFloat16(ToFloat(h)).bits, bits) << "bits 0x" << std::hex << bits;
  }
}

TEST(Bfloat16, KnownBitPatternsAndRounding) {
  EXPECT_EQ(ToBfloat16(1.0f).bits, 0x3f80);
  EXPECT_EQ(ToBfloat16(-2.0f).bits, 0xc000);
  EXPECT_EQ(ToFloat(Bfloat16{0x3f80}), 1.0f);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1.0); 1 + 3*2^-8 ties up to 1 + 2^-6.
  EXPECT_EQ(ToBfloat16(1.0f + std::ldexp(1.0f, -8)).bits, 0x3f80);
  EXPECT_EQ(ToBfloat16(1.0f + 3 * std::ldexp(1.0f, -8)).bits, 0x3f82);
  EXPECT_TRUE(std::isnan(ToFloat(ToBfloat16(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(Bfloat16, RoundTripsEveryFiniteValue) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const Bfloat16 h{static_cast<uint16_t>(bits)};
    if ((bits & 0x7f80) == 0x7f80 && (bits & 0x7f) != 0) continue;  // NaN payloads may be quieted
    ASSERT_EQ(ToBfloat16(ToFloat(h)).bits, bits) << "bits 0x" << std::hex << bits;
  }
}

TEST(HalfTypes, AreTwoBytes) {
  EXPECT_EQ(sizeof(Float16), 2u);
  EXPECT_EQ(sizeof(Bfloat16), 2u);
}

}  // namespace
}  // namespace kcoll
