// Fitting measurements to the alpha-beta line of a link (and gamma of a reduction), for the profile calibration
// measures (models/machine.h's Profile).
//
// Fit: for one link class, ping-pong samples (bytes, one-way seconds = half the round trip) are fitted by least
// squares to t = alpha + beta * bytes, with the coefficient of determination R^2; the squares are of the errors in
// seconds or, for sweeps over many orders of magnitude, of the relative errors (FitWeighting). A negative intercept
// (latency lost in the noise) is not a latency: the fit is then redone with alpha = 0 (the least-squares optimum under
// alpha >= 0) and says so. The same fit gives gamma from (bytes reduced, seconds) samples of the local reduction (use
// its beta).
#ifndef KCOLL_CALIBRATION_FIT_H_
#define KCOLL_CALIBRATION_FIT_H_

#include <vector>

#include "absl/status/statusor.h"
#include "models/machine.h"

namespace kcoll {
namespace calibration {

struct Sample {
  double bytes = 0;
  double seconds = 0;
};

struct LinkFit {
  models::LinkParams link;
  double r_squared = 0;            // 1 when the samples lie exactly on the line (or all take the same time)
  bool intercept_clamped = false;  // the unconstrained fit had alpha < 0, so alpha was fixed at 0
};

// What the least squares minimise.
enum class FitWeighting {
  // The squared errors in seconds: the largest sizes dominate. Right when only large sizes matter (gamma).
  kAbsolute,
  // The squared relative errors (weights 1 / seconds^2): every size counts alike, so a sweep from bytes to
  // megabytes gives alpha from the small sizes and beta from the large ones. R^2 is then the weighted one.
  kRelative,
};

// InvalidArgument: fewer than two samples, a sample with non-finite or negative bytes or seconds (named by index),
// a zero time in a relative fit, all samples of one size (no slope to fit), or a fitted beta <= 0 (time does not
// grow with size).
absl::StatusOr<LinkFit> FitLink(const std::vector<Sample>& samples, FitWeighting weighting = FitWeighting::kAbsolute);

}  // namespace calibration
}  // namespace kcoll

#endif  // KCOLL_CALIBRATION_FIT_H_
