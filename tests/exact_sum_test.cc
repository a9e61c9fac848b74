// numerics=exact's element arithmetic (collectives/kernels/exact_sum.h) against a reference written apart from it:
// the terms truncated at the window's bottom and summed as one big integer (32-bit words), then rounded to nearest
// even with std::ldexp. Also the properties the mode promises whatever the reference says: the same bits for every
// order and grouping of the terms, a single term unchanged, sums that ordinary addition gets wrong, IEEE's specials.
#include "collectives/kernels/exact_sum.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "collectives/kernels/host_reduce.h"
#include "gtest/gtest.h"

namespace kcoll {
namespace {

template <class T>
uint64_t Bits(T v) {
  uint64_t u = 0;
  std::memcpy(&u, &v, sizeof(T));
  return u;
}

// A non-negative big integer, 32 bits a word, least significant first.
struct Big {
  std::vector<uint32_t> w = std::vector<uint32_t>(80, 0);
  void AddShifted(uint64_t m, int shift) {  // += m * 2^shift, shift >= 0
    for (int b = 0; b < 64; ++b) {
      if ((m >> b) & 1) AddBit(b + shift);
    }
  }
  void AddBit(int bit) {
    for (size_t i = bit / 32, carry = uint64_t{1} << (bit % 32); carry != 0; ++i) {
      const uint64_t s = uint64_t{w[i]} + carry;
      w[i] = static_cast<uint32_t>(s);
      carry = s >> 32;
    }
  }
  bool Bit(int b) const { return b >= 0 && ((w[b / 32] >> (b % 32)) & 1); }
  int Length() const {
    for (int b = static_cast<int>(w.size()) * 32 - 1; b >= 0; --b) {
      if (Bit(b)) return b + 1;
    }
    return 0;
  }
  bool Less(const Big& o) const {
    for (size_t i = w.size(); i-- > 0;) {
      if (w[i] != o.w[i]) return w[i] < o.w[i];
    }
    return false;
  }
  Big Minus(const Big& o) const {  // *this >= o
    Big d;
    int64_t borrow = 0;
    for (size_t i = 0; i < w.size(); ++i) {
      int64_t v = int64_t{w[i]} - o.w[i] - borrow;
      borrow = v < 0;
      d.w[i] = static_cast<uint32_t>(v + (borrow << 32));
    }
    return d;
  }
};

struct Format {
  int bins, significand, min_lsb, max_lead;
};

template <class T>
Format FormatOf() {
  using F = ExactFormat<T>;
  return {F::kBins, F::kSignificand, F::kMinLsb, F::kMaxLead};
}

// The mode's result for finite terms, computed the long way.
double Reference(const std::vector<double>& terms, Format f) {
  int max_lead = std::numeric_limits<int>::min();
  bool all_negative_zero = true;
  for (double x : terms) {
    if (x != 0) max_lead = std::max(max_lead, std::ilogb(x));
    if (!(x == 0 && std::signbit(x))) all_negative_zero = false;
  }
  if (max_lead == std::numeric_limits<int>::min()) return all_negative_zero ? -0.0 : 0.0;
  const int top_bin = (max_lead + 1088) / 16;
  const int bottom = (top_bin - f.bins + 1) * 16 - 1088;
  Big positive, negative;
  for (double x : terms) {
    if (x == 0) continue;
    int e;
    const double frac = std::frexp(std::fabs(x), &e);  // |x| = frac * 2^e, frac in [0.5, 1)
    const uint64_t m = static_cast<uint64_t>(std::ldexp(frac, 53));
    const int q = e - 53;  // |x| = m * 2^q
    Big& into = x > 0 ? positive : negative;
    if (q >= bottom) {
      into.AddShifted(m, q - bottom);
    } else if (bottom - q < 64) {
      into.AddShifted(m >> (bottom - q), 0);
    }
  }
  const bool is_negative = positive.Less(negative);
  const Big sum = is_negative ? negative.Minus(positive) : positive.Minus(negative);
  const int length = sum.Length();
  if (length == 0) return 0.0;
  const int lead = length - 1 + bottom;
  if (lead > f.max_lead) return is_negative ? -HUGE_VAL : HUGE_VAL;
  const int lsb = std::max(lead - (f.significand - 1), f.min_lsb);
  const int cut = lsb - bottom;  // bits of `sum` below the result's last bit
  uint64_t r = 0;
  for (int b = length - 1; b >= std::max(cut, 0); --b) r = (r << 1) | sum.Bit(b);
  if (cut < 0) r <<= -cut;
  if (cut > 0) {
    bool sticky = false;
    for (int b = 0; b < cut - 1; ++b) sticky = sticky || sum.Bit(b);
    if (sum.Bit(cut - 1) && (sticky || (r & 1))) ++r;
  }
  const double v = std::ldexp(static_cast<double>(r), lsb);
  if (std::fabs(v) > 0 && std::ilogb(v) > f.max_lead) return is_negative ? -HUGE_VAL : HUGE_VAL;
  return is_negative ? -v : v;
}

template <class T>
T SumOf(const std::vector<T>& terms) {
  T out;
  std::vector<const unsigned char*> inputs;
  for (const T& t : terms) inputs.push_back(reinterpret_cast<const unsigned char*>(&t));
  const DataType type = std::is_same<T, double>::value    ? DataType::kFloat64
                        : std::is_same<T, float>::value   ? DataType::kFloat32
                        : std::is_same<T, Float16>::value ? DataType::kFloat16
                                                          : DataType::kBfloat16;
  EXPECT_TRUE(
      HostExactSum(type, &out, inputs.data(), static_cast<int>(terms.size()), static_cast<int>(terms.size()), 1));
  return out;
}

// The sum through partial limb sums, the way a reduction groups the terms: split at `cut`, each part's limbs summed
// apart, then the two added.
template <class T>
T SumInTwoParts(const std::vector<T>& terms, size_t cut) {
  uint8_t code = 0;
  for (const T& t : terms) code = std::max(code, ExactCode(t));
  int64_t a[ExactFormat<T>::kWords] = {}, b[ExactFormat<T>::kWords] = {};
  for (size_t i = 0; i < terms.size(); ++i) ExactAddTerm(terms[i], code, i < cut ? a : b);
  for (int k = 0; k < ExactFormat<T>::kWords; ++k) a[k] += b[k];
  return ExactResult<T>(a, code);
}

// The sum through an accumulator's form: every term in bins, the bins' value rounded.
template <class T>
T SumInBins(const std::vector<T>& terms) {
  uint8_t code = 0;
  for (const T& t : terms) code = std::max(code, ExactCode(t));
  int64_t bins[ExactFormat<T>::kBins] = {};
  for (const T& t : terms) ExactAddTermToBins(t, code, bins);
  return ExactResultFromBins<T>(bins, code);
}

double Random(std::mt19937_64& rng, int span) {
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-span, span);
  const double x = std::ldexp(mantissa(rng), exponent(rng));
  return (rng() & 1) ? -x : x;
}

TEST(ExactSum, MatchesTheBigIntegerReference) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 3000; ++trial) {
    const int span = trial % 3 == 0 ? 1000 : trial % 3 == 1 ? 80 : 8;
    std::vector<double> terms(1 + trial % 17);
    for (double& x : terms) x = Random(rng, span);
    if (trial % 5 == 0) terms.push_back(-terms[0]);  // cancellation of the largest
    const double expected = Reference(terms, FormatOf<double>());
    const double got = SumOf(terms);
    ASSERT_EQ(Bits(got), Bits(expected)) << "trial " << trial << ": got " << got << ", expected " << expected;
  }
}

TEST(ExactSum, FloatMatchesTheReference) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<float> terms(1 + trial % 13);
    std::vector<double> wide;
    for (float& x : terms) {
      x = static_cast<float>(Random(rng, trial % 2 ? 120 : 30));
      wide.push_back(x);
    }
    const float expected = static_cast<float>(Reference(wide, FormatOf<float>()));
    ASSERT_EQ(Bits(SumOf(terms)), Bits(expected)) << "trial " << trial;
  }
}

TEST(ExactSum, HalfTypesMatchTheReference) {
  std::mt19937_64 rng(13);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<Float16> halves(1 + trial % 9);
    std::vector<Bfloat16> bhalves(halves.size());
    std::vector<double> wide, bwide;
    for (size_t i = 0; i < halves.size(); ++i) {
      halves[i] = ToFloat16(static_cast<float>(Random(rng, 14)));
      bhalves[i] = ToBfloat16(static_cast<float>(Random(rng, 100)));
      wide.push_back(ToFloat(halves[i]));
      bwide.push_back(ToFloat(bhalves[i]));
    }
    EXPECT_EQ(SumOf(halves).bits, ToFloat16(static_cast<float>(Reference(wide, FormatOf<Float16>()))).bits);
    EXPECT_EQ(SumOf(bhalves).bits, ToBfloat16(static_cast<float>(Reference(bwide, FormatOf<Bfloat16>()))).bits);
  }
}

TEST(ExactSum, SameBitsInEveryOrderGroupingAndForm) {
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<double> terms(16);
    for (double& x : terms) x = Random(rng, 60);
    const double first = SumOf(terms);
    for (int shuffle = 0; shuffle < 4; ++shuffle) {
      std::shuffle(terms.begin(), terms.end(), rng);
      ASSERT_EQ(Bits(SumOf(terms)), Bits(first));
      ASSERT_EQ(Bits(SumInTwoParts(terms, rng() % terms.size())), Bits(first));
      ASSERT_EQ(Bits(SumInBins(terms)), Bits(first));
    }
  }
}

TEST(ExactSum, OneTermComesBackUnchanged) {
  std::mt19937_64 rng(19);
  const double specials[] = {DBL_MIN, DBL_TRUE_MIN, -DBL_TRUE_MIN, DBL_MAX, -DBL_MAX, 1.0, -0.0, 0.0, 3 * DBL_TRUE_MIN};
  for (double x : specials) EXPECT_EQ(Bits(SumOf(std::vector<double>{x})), Bits(x)) << x;
  for (int i = 0; i < 2000; ++i) {
    const double x = Random(rng, 1020);
    ASSERT_EQ(Bits(SumOf(std::vector<double>{x})), Bits(x)) << x;
    const float f = static_cast<float>(Random(rng, 126));
    ASSERT_EQ(Bits(SumOf(std::vector<float>{f})), Bits(f)) << f;
  }
  EXPECT_EQ(Bits(SumOf(std::vector<float>{FLT_TRUE_MIN})), Bits(FLT_TRUE_MIN));
}

TEST(ExactSum, SumsThatOrderedAdditionGetsWrong) {
  // (1e16 + 1) - 1e16 is 0 or 2 in double arithmetic, depending on the order; the sum is 1.
  EXPECT_EQ(SumOf(std::vector<double>{1e16, 1.0, -1e16}), 1.0);
  EXPECT_EQ(SumOf(std::vector<double>{1.0, 1e16, -1e16}), 1.0);
  // No overflow on the way: MAX + MAX - MAX is MAX.
  EXPECT_EQ(SumOf(std::vector<double>{DBL_MAX, DBL_MAX, -DBL_MAX}), DBL_MAX);
  EXPECT_EQ(SumOf(std::vector<double>{DBL_MAX, DBL_MAX}), HUGE_VAL);
  EXPECT_EQ(SumOf(std::vector<double>{-DBL_MAX, -DBL_MAX}), -HUGE_VAL);
  // Rounded once: 1 + 2^-53 + 2^-54 is above the tie and rounds up (ordered, 1 + 2^-53 ties to 1 first).
  EXPECT_EQ(SumOf(std::vector<double>{1.0, std::ldexp(1.0, -53), std::ldexp(1.0, -54)}), 1.0 + std::ldexp(1.0, -52));
  EXPECT_EQ(SumOf(std::vector<float>{1e8f, 1.0f, -1e8f}), 1.0f);
}

TEST(ExactSum, ZerosAndSpecialsAsIeeeSays) {
  const double inf = HUGE_VAL, nan = std::nan("");
  EXPECT_EQ(Bits(SumOf(std::vector<double>{-0.0, -0.0})), Bits(-0.0));
  EXPECT_EQ(Bits(SumOf(std::vector<double>{-0.0, 0.0})), Bits(0.0));
  EXPECT_EQ(Bits(SumOf(std::vector<double>{2.5, -2.5})), Bits(0.0));
  EXPECT_EQ(SumOf(std::vector<double>{1.0, inf, -3.0}), inf);
  EXPECT_EQ(SumOf(std::vector<double>{-inf, 1.0, -inf}), -inf);
  EXPECT_TRUE(std::isnan(SumOf(std::vector<double>{inf, 1.0, -inf})));
  EXPECT_TRUE(std::isnan(SumOf(std::vector<double>{1.0, nan})));
  EXPECT_TRUE(std::isnan(SumOf(std::vector<double>{inf, nan})));
  // Every NaN comes back as the same NaN, whatever its payload.
  EXPECT_EQ(Bits(SumOf(std::vector<double>{-nan})), Bits(SumOf(std::vector<double>{nan})));
  EXPECT_EQ(SumOf(std::vector<float>{-HUGE_VALF, 2.0f}), -HUGE_VALF);
  EXPECT_EQ(ToFloat(SumOf(std::vector<Float16>{ToFloat16(60000.0f), ToFloat16(60000.0f)})), HUGE_VALF);
}

TEST(ExactSum, ScanPrefixUsesTheWholeWindow) {
  // 1 + 2^-60 - 1 is 2^-60 in its own window; in the window that a later 2^40 chooses, 2^-60 falls below the bottom.
  const double terms[] = {1.0, std::ldexp(1.0, -60), -1.0, std::ldexp(1.0, 40)};
  EXPECT_EQ(ExactSumOfTerms(terms, 1, 3, 3), std::ldexp(1.0, -60));
  EXPECT_EQ(ExactSumOfTerms(terms, 1, 4, 3), 0.0);
  EXPECT_EQ(ExactSumOfTerms(terms, 1, 4, 4), std::ldexp(1.0, 40));
}

// float32 sums in double arithmetic (exact_sum.h's FloatSumInDouble, up to 32 terms) give the words' bits: terms of
// wide and narrow spans, cancellation of the largest, halfway cases, results at the edges of float's normal range and
// beyond, subnormal terms, scan prefixes, and counts on both sides of 32 (above it the words decide).
TEST(ExactSum, FloatInDoubleMatchesTheWords) {
  std::mt19937_64 rng(23);
  auto random_float = [&](int span) { return static_cast<float>(Random(rng, span)); };
  for (int trial = 0; trial < 20000; ++trial) {
    const int n = 1 + trial % 40;
    std::vector<float> terms(n);
    const int kind = trial % 6;
    for (float& x : terms) x = random_float(kind == 0 ? 126 : kind == 1 ? 24 : 4);
    if (kind == 2) terms.back() = -terms.front();  // cancels the first
    if (kind == 3) terms.back() = std::ldexp(terms.front() < 0 ? -1.0f : 1.0f, std::ilogb(terms.front()) - 24);
    if (kind == 4) {  // near the bottom of the range
      for (float& x : terms) x = std::ldexp(x, -120);
    }
    if (kind == 5) {  // near the top
      for (float& x : terms) x = std::ldexp(static_cast<float>(Random(rng, 1)), 126);
    }
    const int window = n, summed = trial % 7 == 0 ? 1 + static_cast<int>(rng() % n) : n;
    const float fast = ExactSumOfTerms(terms.data(), 1, window, summed);
    const float words = ExactSumOfTermsInWords(terms.data(), 1, window, summed);
    ASSERT_EQ(Bits(fast), Bits(words)) << "trial " << trial << ", " << n << " terms, " << summed << " summed: " << fast
                                       << " against " << words;
  }
  const float edges[][3] = {{1.0f, 0x1p-24f, 0.0f},        {1.0f, 0x1.8p-24f, 0.0f},
                            {0x1p-126f, -0x1p-149f, 0.0f}, {FLT_TRUE_MIN, FLT_TRUE_MIN, 0.0f},
                            {FLT_MAX, FLT_MAX, -FLT_MAX},  {FLT_MAX, 0x1p103f, 0.0f},
                            {-0.0f, -0.0f, -0.0f},         {1.0f, -1.0f, -0.0f},
                            {0x1p-100f, 1.0f, -1.0f}};
  for (const auto& e : edges) {
    ASSERT_EQ(Bits(ExactSumOfTerms(e, 1, 3, 3)), Bits(ExactSumOfTermsInWords(e, 1, 3, 3)))
        << e[0] << " + " << e[1] << " + " << e[2];
  }
}

TEST(ExactSum, RejectsWhatItCannotSum) {
  int32_t ints[2] = {1, 2};
  const unsigned char* inputs[2] = {reinterpret_cast<const unsigned char*>(&ints[0]),
                                    reinterpret_cast<const unsigned char*>(&ints[1])};
  int32_t out = 0;
  EXPECT_FALSE(HostExactSum(DataType::kInt32, &out, inputs, 2, 2, 1));
  double d[2] = {1, 2}, dout = 0;
  const unsigned char* dinputs[2] = {reinterpret_cast<const unsigned char*>(&d[0]),
                                     reinterpret_cast<const unsigned char*>(&d[1])};
  EXPECT_FALSE(HostExactSum(DataType::kFloat64, &dout, dinputs, 2, 3, 1));  // more summed than in the window
  EXPECT_FALSE(HostExactSum(DataType::kFloat64, &dout, dinputs, 2, 0, 1));
}

}  // namespace
}  // namespace kcoll
