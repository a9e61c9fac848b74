#include "models/profile_json.h"

#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace kcoll {
namespace models {

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
  PutCurve(link.one_stream_curve, "one_stream_curve", j);
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
  if (absl::Status s = ReadCurve(*it, "curve", absl::StrCat(key, ".curve"), &link->curve); !s.ok()) return s;
  return ReadCurve(*it, "one_stream_curve", absl::StrCat(key, ".one_stream_curve"), &link->one_stream_curve);
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
  if (profile.shm_slot_bytes.has_value()) j["shm_slot_bytes"] = *profile.shm_slot_bytes;
  if (profile.shm_single_copy_bytes.has_value()) j["shm_single_copy_bytes"] = *profile.shm_single_copy_bytes;
  if (!profile.vendor_all_reduce_bytes.empty()) {
    json ranges = json::array();
    for (const auto& [first, last] : profile.vendor_all_reduce_bytes) ranges.push_back({first, last});
    j["vendor_all_reduce_bytes"] = ranges;
  }
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
  for (const auto& [key, field] : {std::pair{"shm_single_copy_bytes", &profile.shm_single_copy_bytes},
                                   std::pair{"shm_slot_bytes", &profile.shm_slot_bytes}}) {
    auto it = j.find(key);
    if (it == j.end()) continue;
    if (!it->is_number_integer()) {
      return absl::InvalidArgumentError(absl::StrCat("profile field '", key, "' must be a whole number of bytes, not ",
                                                     it->type_name(), " ", it->dump()));
    }
    *field = it->get<int64_t>();
  }
  if (auto it = j.find("vendor_all_reduce_bytes"); it != j.end()) {
    const auto bad = [&it] {
      return absl::InvalidArgumentError(absl::StrCat(
          "profile field 'vendor_all_reduce_bytes' must be a list of [first, last] byte ranges, not ", it->dump()));
    };
    if (!it->is_array()) return bad();
    for (const json& range : *it) {
      if (!range.is_array() || range.size() != 2 || !range[0].is_number_integer() || !range[1].is_number_integer()) {
        return bad();
      }
      profile.vendor_all_reduce_bytes.emplace_back(range[0].get<int64_t>(), range[1].get<int64_t>());
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
