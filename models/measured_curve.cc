#include "models/measured_curve.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace kcoll {
namespace models {

double MeasuredCurve::Seconds(double bytes) const {
  if (points.empty() || !(bytes > 0)) return points.empty() || proportional ? 0 : points.front().seconds;
  const CurvePoint& first = points.front();
  const CurvePoint& last = points.back();
  if (bytes <= first.bytes) return proportional ? first.seconds * bytes / first.bytes : first.seconds;
  if (bytes >= last.bytes) return last.seconds * bytes / last.bytes;
  // The first point at or above `bytes`; its predecessor is below.
  const auto hi =
      std::lower_bound(points.begin(), points.end(), bytes, [](const CurvePoint& p, double b) { return p.bytes < b; });
  const auto lo = hi - 1;
  const double t = std::log(bytes / lo->bytes) / std::log(hi->bytes / lo->bytes);
  return std::exp((1 - t) * std::log(lo->seconds) + t * std::log(hi->seconds));
}

double MeasuredCurve::SecondsIn(double bytes, double working_set_bytes) const {
  const double seconds = Seconds(bytes);
  // The size whose measurement ran in a buffer of working_set_bytes.
  const double working_set = working_set_bytes / buffer_per_message;
  if (!(bytes > 0) || !(working_set > bytes)) return seconds;
  const double extra_per_byte = Seconds(working_set) / working_set - seconds / bytes;
  return extra_per_byte > 0 ? seconds + bytes * extra_per_byte : seconds;
}

absl::Status ValidateCurve(const MeasuredCurve& curve, absl::string_view name) {
  if (curve.points.empty()) return absl::OkStatus();
  if (curve.points.size() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " has ", curve.points.size(), " point; a curve needs at least 2"));
  }
  if (!std::isfinite(curve.buffer_per_message) || !(curve.buffer_per_message > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " buffer_per_message=", curve.buffer_per_message, " must be finite and > 0"));
  }
  for (size_t i = 0; i < curve.points.size(); ++i) {
    const CurvePoint& p = curve.points[i];
    if (!std::isfinite(p.bytes) || p.bytes <= 0 || (i > 0 && p.bytes <= curve.points[i - 1].bytes)) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, "[", i, "] bytes=", p.bytes, " must be finite, > 0 and above the previous point's"));
    }
    if (!std::isfinite(p.seconds) || p.seconds <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(name, "[", i, "] seconds=", p.seconds, " must be finite and > 0"));
    }
  }
  return absl::OkStatus();
}

}  // namespace models
}  // namespace kcoll
