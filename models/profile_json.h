// A machine's Profile (machine.h) as JSON: what //bench:calibrate saves, the built-in profiles ship as, and `auto`
// loads.
//
// Form (schema version 1; numbers in SI units, unknown keys ignored):
//   {
//     "schema_version": 1,
//     "description": "free text",                          (optional)
//     "intra": {"alpha_s": 1e-06, "beta_s_per_byte": 1.6e-12,
//               "curve": [[8, 1.1e-06], [65536, 5e-06], ...]},          (optional: measured one-way seconds)
//     "inter": {"alpha_s": 5e-06, "beta_s_per_byte": 1e-11,
//               "curve": [...], "one_stream_curve": [...]},                (optional: one stream through the link)
//     "gamma_s_per_byte": 0,
//     "gamma_curve": [[4096, 2e-07], ...],                               (optional: measured reduction seconds)
//     "memcpy_bytes_per_s": 2e+10,
//     "transfers_use_cores": true                                        (optional, default false)
//   }
// A link's "curve" and "gamma_curve" (measured_curve.h), when present, price the messages and reductions in place of
// the alpha-beta line and gamma; a profile without them is the pure alpha-beta model. A link's "one_stream_curve"
// prices the rounds that send one stream through it (LinkParams::one_stream_curve).
#ifndef KCOLL_MODELS_PROFILE_JSON_H_
#define KCOLL_MODELS_PROFILE_JSON_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "models/machine.h"

namespace kcoll {
namespace models {

inline constexpr int kProfileSchemaVersion = 1;

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

#endif  // KCOLL_MODELS_PROFILE_JSON_H_
