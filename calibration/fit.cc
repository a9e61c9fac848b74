#include "calibration/fit.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace kcoll {
namespace calibration {

absl::StatusOr<LinkFit> FitLink(const std::vector<Sample>& samples, FitWeighting weighting) {
  if (samples.size() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("samples: ", samples.size(), " given, at least 2 of different sizes are needed"));
  }
  const bool relative = weighting == FitWeighting::kRelative;
  for (size_t i = 0; i < samples.size(); ++i) {
    const Sample& s = samples[i];
    if (!std::isfinite(s.bytes) || s.bytes < 0 || !std::isfinite(s.seconds) || s.seconds < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("samples[", i, "] = (bytes=", s.bytes, ", seconds=", s.seconds, ") must be finite and >= 0"));
    }
    if (relative && !(s.seconds > 0)) {
      return absl::InvalidArgumentError(absl::StrCat("samples[", i, "] = (bytes=", s.bytes, ", seconds=", s.seconds,
                                                     "): a relative fit needs seconds > 0"));
    }
  }
  // Weighted least squares; weight 1 (absolute) or 1 / seconds^2 (relative: minimises the squared relative errors).
  std::vector<double> w(samples.size(), 1.0);
  if (relative) {
    for (size_t i = 0; i < samples.size(); ++i) w[i] = 1.0 / (samples[i].seconds * samples[i].seconds);
  }
  double sum_w = 0, mean_x = 0, mean_y = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    sum_w += w[i];
    mean_x += w[i] * samples[i].bytes;
    mean_y += w[i] * samples[i].seconds;
  }
  mean_x /= sum_w;
  mean_y /= sum_w;
  double sxx = 0, sxy = 0, syy = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    const double dx = samples[i].bytes - mean_x;
    const double dy = samples[i].seconds - mean_y;
    sxx += w[i] * dx * dx;
    sxy += w[i] * dx * dy;
    syy += w[i] * dy * dy;
  }
  // Checked on the sizes themselves: rounding in the weighted mean must not pass for a slope.
  bool one_size = true;
  for (const Sample& s : samples) one_size = one_size && s.bytes == samples[0].bytes;
  if (one_size || !(sxx > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("samples: all ", samples.size(), " have bytes=", samples[0].bytes, "; a slope needs two sizes"));
  }
  LinkFit fit;
  fit.link.beta_s_per_byte = sxy / sxx;
  fit.link.alpha_s = mean_y - fit.link.beta_s_per_byte * mean_x;
  if (fit.link.alpha_s < 0) {
    // Least squares through the origin.
    double xx = 0, xy = 0;
    for (size_t i = 0; i < samples.size(); ++i) {
      xx += w[i] * samples[i].bytes * samples[i].bytes;
      xy += w[i] * samples[i].bytes * samples[i].seconds;
    }
    fit.link.alpha_s = 0;
    fit.link.beta_s_per_byte = xy / xx;
    fit.intercept_clamped = true;
  }
  if (!(fit.link.beta_s_per_byte > 0)) {
    return absl::InvalidArgumentError(absl::StrCat("samples: fitted beta_s_per_byte=", fit.link.beta_s_per_byte,
                                                   " is not > 0: the time does not grow with the size"));
  }
  double residual = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    const double e = samples[i].seconds - fit.link.Seconds(samples[i].bytes);
    residual += w[i] * e * e;
  }
  fit.r_squared = syy > 0 ? 1.0 - residual / syy : 1.0;
  return fit;
}

}  // namespace calibration
}  // namespace kcoll
