#include "models/calibration.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace kcoll {
namespace models {

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

namespace {

using nlohmann::json;

json CurveToJson(const MeasuredCurve& curve) {
  json points = json::array();
  for (const CurvePoint& p : curve.points) points.push_back(json::array({p.bytes, p.seconds}));
  return points;
}

// object[key] = the curve's points and, when they were measured inside a larger buffer, object[key +
// "_buffer_per_message"].
void PutCurve(const MeasuredCurve& curve, const std::string& key, json& object) {
  if (curve.empty()) return;
  object[key] = CurveToJson(curve);
  if (curve.buffer_per_message != 1) object[key + "_buffer_per_message"] = curve.buffer_per_message;
}

json LinkToJson(const LinkParams& link) {
  json j{{"alpha_s", link.alpha_s}, {"beta_s_per_byte", link.beta_s_per_byte}};
  PutCurve(link.curve, "curve", j);
  return j;
}

// Reads the optional object[key], an array of [bytes, seconds] pairs, into *curve (left empty when absent), and the
// optional object[key + "_buffer_per_message"].
absl::Status ReadCurve(const json& object, const char* key, const std::string& path, MeasuredCurve* curve) {
  const std::string buffer_key = absl::StrCat(key, "_buffer_per_message");
  if (auto b = object.find(buffer_key); b != object.end()) {
    if (!b->is_number()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "profile field '", path, "_buffer_per_message' must be a number, not ", b->type_name(), " ", b->dump()));
    }
    curve->buffer_per_message = b->get<double>();
  }
  auto it = object.find(key);
  if (it == object.end()) return absl::OkStatus();
  if (!it->is_array()) {
    return absl::InvalidArgumentError(
        absl::StrCat("profile field '", path, "' must be an array of [bytes, seconds], not ", it->type_name()));
  }
  for (size_t i = 0; i < it->size(); ++i) {
    const json& point = (*it)[i];
    if (!point.is_array() || point.size() != 2 || !point[0].is_number() || !point[1].is_number()) {
      return absl::InvalidArgumentError(
          absl::StrCat("profile field '", path, "[", i, "]' must be [bytes, seconds], not ", point.dump()));
    }
    curve->points.push_back({point[0].get<double>(), point[1].get<double>()});
  }
  return absl::OkStatus();
}

// Reads object[key] as a number into *out; `path` is the field's dotted name for messages.
absl::Status ReadNumber(const json& object, const char* key, const std::string& path, double* out) {
  auto it = object.find(key);
  if (it == object.end()) return absl::InvalidArgumentError(absl::StrCat("profile field '", path, "' is missing"));
  if (!it->is_number()) {
    return absl::InvalidArgumentError(
        absl::StrCat("profile field '", path, "' must be a number, not ", it->type_name(), " ", it->dump()));
  }
  *out = it->get<double>();
  return absl::OkStatus();
}

absl::Status ReadLink(const json& object, const char* key, LinkParams* link) {
  auto it = object.find(key);
  if (it == object.end()) return absl::InvalidArgumentError(absl::StrCat("profile field '", key, "' is missing"));
  if (!it->is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("profile field '", key, "' must be an object, not ", it->type_name()));
  }
  if (absl::Status s = ReadNumber(*it, "alpha_s", absl::StrCat(key, ".alpha_s"), &link->alpha_s); !s.ok()) return s;
  if (absl::Status s =
          ReadNumber(*it, "beta_s_per_byte", absl::StrCat(key, ".beta_s_per_byte"), &link->beta_s_per_byte);
      !s.ok()) {
    return s;
  }
  return ReadCurve(*it, "curve", absl::StrCat(key, ".curve"), &link->curve);
}

}  // namespace

std::string ProfileToJson(const Profile& profile) {
  json j;
  j["schema_version"] = kProfileSchemaVersion;
  if (!profile.description.empty()) j["description"] = profile.description;
  j["intra"] = LinkToJson(profile.intra);
  j["inter"] = LinkToJson(profile.inter);
  j["gamma_s_per_byte"] = profile.gamma_s_per_byte;
  PutCurve(profile.gamma_curve, "gamma_curve", j);
  j["transfers_use_cores"] = profile.transfers_use_cores;
  j["rank_core_share"] = profile.rank_core_share;
  j["memcpy_bytes_per_s"] = profile.memcpy_bytes_per_s;
  // Invalid UTF-8 in the description is replaced rather than thrown on.
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

absl::StatusOr<Profile> ProfileFromJson(absl::string_view text) {
  const json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return absl::InvalidArgumentError("profile: not valid JSON");
  if (!j.is_object())
    return absl::InvalidArgumentError(absl::StrCat("profile: expected an object, not ", j.type_name()));
  double version = 0;
  if (absl::Status s = ReadNumber(j, "schema_version", "schema_version", &version); !s.ok()) return s;
  if (version != kProfileSchemaVersion) {
    return absl::InvalidArgumentError(absl::StrCat("profile field 'schema_version' is ", version,
                                                   "; this build reads version ", kProfileSchemaVersion));
  }
  Profile profile;
  if (auto it = j.find("description"); it != j.end()) {
    if (!it->is_string()) {
      return absl::InvalidArgumentError(
          absl::StrCat("profile field 'description' must be a string, not ", it->type_name()));
    }
    profile.description = it->get<std::string>();
  }
  if (absl::Status s = ReadLink(j, "intra", &profile.intra); !s.ok()) return s;
  if (absl::Status s = ReadLink(j, "inter", &profile.inter); !s.ok()) return s;
  if (absl::Status s = ReadNumber(j, "gamma_s_per_byte", "gamma_s_per_byte", &profile.gamma_s_per_byte); !s.ok()) {
    return s;
  }
  if (absl::Status s = ReadNumber(j, "memcpy_bytes_per_s", "memcpy_bytes_per_s", &profile.memcpy_bytes_per_s);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = ReadCurve(j, "gamma_curve", "gamma_curve", &profile.gamma_curve); !s.ok()) return s;
  profile.gamma_curve.proportional = true;
  if (auto it = j.find("transfers_use_cores"); it != j.end()) {
    if (!it->is_boolean()) {
      return absl::InvalidArgumentError(absl::StrCat("profile field 'transfers_use_cores' must be true or false, not ",
                                                     it->type_name(), " ", it->dump()));
    }
    profile.transfers_use_cores = it->get<bool>();
  }
  if (j.contains("rank_core_share")) {
    if (absl::Status s = ReadNumber(j, "rank_core_share", "rank_core_share", &profile.rank_core_share); !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = ValidateProfile(profile); !s.ok()) return s;
  return profile;
}

absl::Status SaveProfile(const Profile& profile, const std::string& path) {
  if (absl::Status s = ValidateProfile(profile); !s.ok()) return s;
  std::ofstream out(path);
  if (!out) return absl::InvalidArgumentError(absl::StrCat("profile path '", path, "' cannot be written"));
  out << ProfileToJson(profile);
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("profile path '", path, "': write failed"));
  return absl::OkStatus();
}

absl::StatusOr<Profile> LoadProfile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("profile path '", path, "' cannot be read"));
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<Profile> profile = ProfileFromJson(text.str());
  if (!profile.ok()) {
    return absl::Status(profile.status().code(), absl::StrCat(path, ": ", profile.status().message()));
  }
  return profile;
}

}  // namespace models
}  // namespace kcoll
