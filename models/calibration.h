// Turning measurements into a Profile (cost_model.h's machine description), and keeping profiles as JSON.
//
// Fit: for one link class, ping-pong samples (bytes, one-way seconds = half the round trip) are fitted by least
// squares to t = alpha + beta * bytes, with the coefficient of determination R^2; the squares are of the errors in
// seconds or, for sweeps over many orders of magnitude, of the relative errors (FitWeighting). A negative intercept
// (latency lost in the noise) is not a latency: the fit is then redone with alpha = 0 (the least-squares optimum under
// alpha >= 0) and says so. The same fit gives gamma from (bytes reduced, seconds) samples of the local reduction (use
// its beta).
//
// JSON form (schema version 1; numbers in SI units, unknown keys ignored):
//   {
//     "schema_version": 1,
//     "description": "free text",                          (optional)
//     "intra": {"alpha_s": 1e-06, "beta_s_per_byte": 1.6e-12,
//               "curve": [[8, 1.1e-06], [65536, 5e-06], ...]},          (optional: measured one-way seconds)
//     "inter": {"alpha_s": 5e-06, "beta_s_per_byte": 1e-11},
//     "gamma_s_per_byte": 0,
//     "gamma_curve": [[4096, 2e-07], ...],                               (optional: measured reduction seconds)
//     "memcpy_bytes_per_s": 2e+10,
//     "transfers_use_cores": true                                        (optional, default false)
//   }
// A link's "curve" and "gamma_curve" (measured_curve.h), when present, price the messages and reductions in place of
// the alpha-beta line and gamma; a profile without them is the pure alpha-beta model.
#ifndef KCOLL_MODELS_CALIBRATION_H_
#define KCOLL_MODELS_CALIBRATION_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "models/machine.h"

namespace kcoll {
namespace models {

inline constexpr int kProfileSchemaVersion = 1;

struct Sample {
  double bytes = 0;
  double seconds = 0;
};

struct LinkFit {
  LinkParams link;
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

// The profile as pretty-printed JSON (the form above).
std::string ProfileToJson(const Profile& profile);

// Parses and validates (ValidateProfile) a profile. InvalidArgument for malformed JSON, a schema_version other than
// kProfileSchemaVersion, and a missing or non-numeric field (the message names the field, e.g. "intra.alpha_s").
absl::StatusOr<Profile> ProfileFromJson(absl::string_view json);

// File forms of the two above; errors name the path.
absl::Status SaveProfile(const Profile& profile, const std::string& path);
absl::StatusOr<Profile> LoadProfile(const std::string& path);

}  // namespace models
}  // namespace kcoll

#endif  // KCOLL_MODELS_CALIBRATION_H_
