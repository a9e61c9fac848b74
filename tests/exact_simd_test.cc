// The vectorised exact float64 sums (collectives/kernels/exact_simd.h) against the element-wise ExactSumOfTerms, bit
// for bit: every instruction set this CPU has, 1 to 17 terms per element and a scan's prefixes, element counts that
// leave a tail, in place, and elements of every kind mixed within a vector (ordinary terms, wide exponents,
// cancellation to zero and to subnormal sums, sums that overflow, NaN, infinities, signed zeros, subnormal and tiny
// terms), so vector groups fall back lane by lane.
#include "collectives/kernels/exact_simd.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "collectives/kernels/exact_sum.h"
#include "gtest/gtest.h"

namespace kcoll {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Term k of element i's `terms` (of n), drawn by element kind.
std::vector<double> MixedTerms(int n, size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::uniform_int_distribution<int> kind_of(0, 19), exponent(-60, 60), wide(-1070, 1020);
  std::vector<double> terms(static_cast<size_t>(n) * count);
  auto at = [&](int k, size_t i) -> double& { return terms[static_cast<size_t>(k) * count + i]; };
  for (size_t i = 0; i < count; ++i) {
    const int kind = kind_of(rng);
    for (int k = 0; k < n; ++k) {
      double x = std::ldexp(normal(rng), exponent(rng));  // kinds 0-9: ordinary terms
      if (kind == 10) x = std::ldexp(normal(rng), wide(rng));
      if (kind == 11) x = k % 2 ? -at(k - 1, i) : std::ldexp(normal(rng), exponent(rng));   // cancels to zero
      if (kind == 12) x = k % 2 ? -at(k - 1, i) * (1 + 0x1p-52) : 0x1p-1000 * normal(rng);  // subnormal sums
      if (kind == 13) x = std::numeric_limits<double>::max() * (0.6 + 0.1 * k);             // overflows
      if (kind == 14 && k == n / 2) x = std::nan("");
      if (kind == 15 && k == 0) x = rng() % 2 ? kInf : -kInf;
      if (kind == 16) x = rng() % 2 ? 0.0 : -0.0;
      if (kind == 17) x = std::ldexp(normal(rng), -1070);     // subnormal terms
      if (kind == 18) x = std::ldexp(normal(rng), -950 + k);  // below the vector path's window
      if (kind == 19 && k == 0) x = std::ldexp(1.0, 60);      // one large term swamps the rest
      at(k, i) = x;
    }
  }
  return terms;
}

std::vector<double> Reference(const std::vector<double>& terms, size_t count, int window, int sum) {
  std::vector<double> want(count);
  for (size_t i = 0; i < count; ++i)
    want[i] = ExactSumOfTerms(terms.data() + i, static_cast<int64_t>(count), window, sum);
  return want;
}

// The index of the first element whose bits differ, or -1.
long FirstDifference(const std::vector<double>& a, const double* b, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(double)) != 0) return static_cast<long>(i);
  }
  return -1;
}

std::vector<ExactSimd> LevelsHere() {
  std::vector<ExactSimd> levels;
  for (ExactSimd level : {ExactSimd::kAvx2, ExactSimd::kAvx512}) {
    if (HostExactSimdAvailable(level)) levels.push_back(level);
  }
  return levels;
}

const char* NameOf(ExactSimd level) { return level == ExactSimd::kAvx512 ? "AVX-512F" : "AVX2"; }

TEST(ExactSimd, MatchesTheElementwiseSumsOnEveryKindOfElement) {
  if (LevelsHere().empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512F: HostExactSums returns false";
  const size_t count = 4099;  // not a multiple of 4 or 8: the tail runs too
  for (ExactSimd level : LevelsHere()) {
    std::printf("checking %s\n", NameOf(level));
    for (int n : {1, 2, 3, 4, 5, 8, 9, 16, 17}) {
      const std::vector<double> terms = MixedTerms(n, count, 1000 + static_cast<uint64_t>(n));
      const std::vector<double> want = Reference(terms, count, n, n);
      std::vector<double> got(count, -1.0);
      ASSERT_TRUE(HostExactSums(level, got.data(), terms.data(), count, count, n, n));
      const long at = FirstDifference(want, got.data(), count);
      EXPECT_EQ(at, -1) << NameOf(level) << " " << n << " terms: element " << at << " expected " << want[at] << " got "
                        << got[at];
    }
  }
}

TEST(ExactSimd, ScanPrefixesSumInTheWholeWindow) {
  if (LevelsHere().empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512F";
  const int n = 6;
  const size_t count = 1001;
  const std::vector<double> terms = MixedTerms(n, count, 77);
  for (ExactSimd level : LevelsHere()) {
    for (int sum = 1; sum <= n; ++sum) {
      const std::vector<double> want = Reference(terms, count, n, sum);
      std::vector<double> got(count);
      ASSERT_TRUE(HostExactSums(level, got.data(), terms.data(), count, count, n, sum));
      EXPECT_EQ(FirstDifference(want, got.data(), count), -1) << NameOf(level) << " prefix of " << sum;
    }
  }
}

TEST(ExactSimd, InPlaceOverTheFirstRow) {
  if (LevelsHere().empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512F";
  const int n = 5;
  const size_t count = 2053;
  for (ExactSimd level : LevelsHere()) {
    std::vector<double> terms = MixedTerms(n, count, 5);
    const std::vector<double> want = Reference(terms, count, n, n);
    ASSERT_TRUE(HostExactSums(level, terms.data(), terms.data(), count, count, n, n));
    EXPECT_EQ(FirstDifference(want, terms.data(), count), -1) << NameOf(level);
  }
}

TEST(ExactSimd, TheTermsMayLieApartFromEachOther) {
  if (LevelsHere().empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512F";
  // Rows `stride` elements apart with unused elements between them (an owner's blocks in a larger buffer).
  const int n = 3;
  const size_t count = 37, stride = 101;
  std::vector<double> terms(stride * n, std::nan(""));
  const std::vector<double> packed = MixedTerms(n, count, 9);
  for (int k = 0; k < n; ++k) std::memcpy(&terms[k * stride], &packed[k * count], count * sizeof(double));
  const std::vector<double> want = Reference(packed, count, n, n);
  for (ExactSimd level : LevelsHere()) {
    std::vector<double> got(count);
    ASSERT_TRUE(HostExactSums(level, got.data(), terms.data(), stride, count, n, n));
    EXPECT_EQ(FirstDifference(want, got.data(), count), -1) << NameOf(level);
  }
}

TEST(ExactSimd, DeclinesWhatItCannotSumAndWritesNothing) {
  std::vector<double> terms(8, 1.0), dst(4, 7.0);
  EXPECT_FALSE(HostExactSums(dst.data(), terms.data(), 4, 4, 2, 0));
  EXPECT_FALSE(HostExactSums(dst.data(), terms.data(), 4, 4, 2, 3));
  std::vector<double> many(static_cast<size_t>(kExactSimdMaxTerms + 1), 1.0);
  EXPECT_FALSE(HostExactSums(dst.data(), many.data(), 1, 1, kExactSimdMaxTerms + 1, kExactSimdMaxTerms + 1));
  EXPECT_EQ(dst, std::vector<double>(4, 7.0));
  if (!HostExactSimdAvailable(ExactSimd::kBest)) {
    EXPECT_FALSE(HostExactSums(dst.data(), terms.data(), 4, 4, 2, 2));
    GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512F: every call declines";
  }
  // The most terms it takes, each filling the window's 80 bits, one sign: its word sums reach 2^93 and stay exact.
  std::mt19937_64 rng(3);
  for (double& x : many) x = std::ldexp(1.0 + static_cast<double>(rng() >> 12) * 0x1p-52, 70);
  const double want = ExactSumOfTerms(many.data(), 1, kExactSimdMaxTerms, kExactSimdMaxTerms);
  for (ExactSimd level : LevelsHere()) {
    ASSERT_TRUE(HostExactSums(level, dst.data(), many.data(), 1, 1, kExactSimdMaxTerms, kExactSimdMaxTerms));
    EXPECT_EQ(std::memcmp(&dst[0], &want, sizeof(double)), 0) << NameOf(level) << ": " << dst[0] << " vs " << want;
  }
}

TEST(ExactSimd, PairsHeldApartMatchTheElementwiseSums) {
  if (LevelsHere().empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512F: HostExactPairSums returns false";
  // Two ranks' copies of a block, in separate buffers, in either order, and written over either one.
  const size_t count = 4099;
  const std::vector<double> terms = MixedTerms(2, count, 2024);
  const std::vector<double> want = Reference(terms, count, 2, 2);
  const std::vector<double> a(terms.begin(), terms.begin() + count), b(terms.begin() + count, terms.end());
  for (ExactSimd level : LevelsHere()) {
    std::vector<double> got(count, -1.0);
    ASSERT_TRUE(HostExactPairSums(level, got.data(), a.data(), b.data(), count));
    EXPECT_EQ(FirstDifference(want, got.data(), count), -1) << NameOf(level) << " a + b";
    ASSERT_TRUE(HostExactPairSums(level, got.data(), b.data(), a.data(), count));
    EXPECT_EQ(FirstDifference(want, got.data(), count), -1) << NameOf(level) << " b + a";
    std::vector<double> over_a = a, over_b = b;
    ASSERT_TRUE(HostExactPairSums(level, over_a.data(), over_a.data(), b.data(), count));
    ASSERT_TRUE(HostExactPairSums(level, over_b.data(), a.data(), over_b.data(), count));
    EXPECT_EQ(FirstDifference(want, over_a.data(), count), -1) << NameOf(level) << " into a";
    EXPECT_EQ(FirstDifference(want, over_b.data(), count), -1) << NameOf(level) << " into b";
  }
}

}  // namespace
}  // namespace kcoll
