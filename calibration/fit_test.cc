#include "calibration/fit.h"

#include <cmath>
#include <vector>

#include "base/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/matchers.h"

namespace kcoll {
namespace calibration {
namespace {

TEST(FitLinkTest, ExactLine) {
  std::vector<Sample> samples;
  for (double b = 0; b <= 1 << 24; b = b == 0 ? 1 : b * 4) samples.push_back({b, 2e-6 + 1e-10 * b});
  const LinkFit fit = Unwrap(FitLink(samples));
  EXPECT_NEAR(fit.link.alpha_s, 2e-6, 1e-15);
  EXPECT_NEAR(fit.link.beta_s_per_byte, 1e-10, 1e-20);
  EXPECT_NEAR(fit.r_squared, 1.0, 1e-12);
  EXPECT_FALSE(fit.intercept_clamped);
}

// Hand-computed: x = 0, 1, 2, 3; y = 1, 3, 4, 7 (scaled). Means 1.5 and 3.75; Sxx = 5, Sxy = 9.5, Syy = 18.75;
// beta = 1.9, alpha = 0.9; residuals 0.1, 0.2, -0.7, 0.4 sum to squares 0.7; R^2 = 1 - 0.7 / 18.75.
TEST(FitLinkTest, NoisyLineAndRSquared) {
  const LinkFit fit = Unwrap(FitLink({{0, 1e-6}, {1e3, 3e-6}, {2e3, 4e-6}, {3e3, 7e-6}}));
  EXPECT_NEAR(fit.link.alpha_s, 0.9e-6, 1e-15);
  EXPECT_NEAR(fit.link.beta_s_per_byte, 1.9e-9, 1e-18);
  EXPECT_NEAR(fit.r_squared, 1 - 0.7 / 18.75, 1e-9);
}

TEST(FitLinkTest, NegativeInterceptIsClampedToZero) {
  // y = 1e-9 x - 1e-6 for large x: OLS intercept < 0.
  const LinkFit fit = Unwrap(FitLink({{1e4, 9e-6}, {2e4, 19e-6}, {4e4, 39e-6}}));
  EXPECT_TRUE(fit.intercept_clamped);
  EXPECT_EQ(fit.link.alpha_s, 0);
  // Least squares through the origin: sum(xy) / sum(xx).
  const double xy = 1e4 * 9e-6 + 2e4 * 19e-6 + 4e4 * 39e-6, xx = 1e8 + 4e8 + 16e8;
  EXPECT_NEAR(fit.link.beta_s_per_byte, xy / xx, 1e-20);
  EXPECT_LT(fit.r_squared, 1);
}

TEST(FitLinkTest, RelativeFitOfAnExactLineIsTheLine) {
  std::vector<Sample> samples;
  for (double b = 8; b <= 1 << 26; b *= 4) samples.push_back({b, 1e-6 + 2e-10 * b});
  const LinkFit fit = Unwrap(FitLink(samples, FitWeighting::kRelative));
  EXPECT_NEAR(fit.link.alpha_s, 1e-6, 1e-15);
  EXPECT_NEAR(fit.link.beta_s_per_byte, 2e-10, 1e-20);
  EXPECT_NEAR(fit.r_squared, 1.0, 1e-12);
}

// Hand-computed with weights 1 / y^2: x = 0, 1, 2 (kB); y = 1, 2, 4 (us); w = 1, 1/4, 1/16.
// sum w = 21/16; mean x = (0 + 1/4 + 2/16) / (21/16) = 6/21; mean y = (1 + 2/4 + 4/16) / (21/16) = 28/21 = 4/3.
// Sxx = 1 (6/21)^2 + 1/4 (15/21)^2 + 1/16 (36/21)^2 = (36 + 56.25 + 81) / 441 = 173.25 / 441.
// Sxy = 1 (-6/21)(-1/3) + 1/4 (15/21)(2/3) + 1/16 (36/21)(8/3) = (2/21)(1 + 1.25 + 3) = 10.5 / 21.
// beta = Sxy / Sxx = (10.5 / 21) (441 / 173.25) = 441 / 346.5 = 14/11 us per kB; alpha = 4/3 - 14/11 * 6/21 = 32/33.
TEST(FitLinkTest, RelativeFitByHand) {
  const LinkFit fit = Unwrap(FitLink({{0, 1e-6}, {1e3, 2e-6}, {2e3, 4e-6}}, FitWeighting::kRelative));
  EXPECT_NEAR(fit.link.beta_s_per_byte, 14.0 / 11.0 * 1e-9, 1e-18);
  EXPECT_NEAR(fit.link.alpha_s, 32.0 / 33.0 * 1e-6, 1e-15);
  // The absolute fit of the same points differs: beta = 1.5 us per kB, alpha = 5/6 us.
  const LinkFit plain = Unwrap(FitLink({{0, 1e-6}, {1e3, 2e-6}, {2e3, 4e-6}}));
  EXPECT_NEAR(plain.link.beta_s_per_byte, 1.5e-9, 1e-18);
  EXPECT_NEAR(plain.link.alpha_s, 5.0 / 6.0 * 1e-6, 1e-15);
}

// 1% noise on the largest size swamps a microsecond latency in an absolute fit; a relative fit still finds it.
TEST(FitLinkTest, RelativeFitKeepsTheLatencyOfAWideSweep) {
  std::vector<Sample> samples;
  for (double b = 8; b <= 1 << 26; b *= 4) samples.push_back({b, 1e-6 + 1e-10 * b});
  samples.back().seconds *= 1.01;
  const LinkFit relative = Unwrap(FitLink(samples, FitWeighting::kRelative));
  EXPECT_NEAR(relative.link.alpha_s, 1e-6, 0.05e-6);
  const LinkFit absolute = Unwrap(FitLink(samples));
  EXPECT_GT(std::abs(absolute.link.alpha_s - 1e-6), 0.5e-6);  // off by more than half
}

TEST(FitLinkTest, RelativeFitNeedsPositiveTimes) {
  EXPECT_THAT(FitLink({{8, 0}, {16, 1e-6}}, FitWeighting::kRelative),
              IsInvalidArgument("samples[0] = (bytes=8, seconds=0): a relative fit needs seconds > 0"));
  EXPECT_THAT(FitLink({{8, 1e-6}, {8, 2e-6}}, FitWeighting::kRelative), IsInvalidArgument("bytes=8"));
}

TEST(FitLinkTest, Errors) {
  EXPECT_THAT(FitLink({}), IsInvalidArgument("samples: 0 given"));
  EXPECT_THAT(FitLink({{1, 1}}), IsInvalidArgument("samples: 1 given"));
  EXPECT_THAT(FitLink({{8, 1e-6}, {8, 2e-6}}), IsInvalidArgument("bytes=8"));
  EXPECT_THAT(FitLink({{8, 1e-6}, {-8, 2e-6}}), IsInvalidArgument("samples[1]"));
  EXPECT_THAT(FitLink({{8, 1e-6}, {16, std::nan("")}}), IsInvalidArgument("samples[1]"));
  EXPECT_THAT(FitLink({{8, 2e-6}, {16, 1e-6}}), IsInvalidArgument("beta_s_per_byte"));
}

}  // namespace
}  // namespace calibration
}  // namespace kcoll
