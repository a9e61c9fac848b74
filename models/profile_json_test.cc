#include "models/profile_json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/test_util.h"
#include "nlohmann/json.hpp"
#include "tests/matchers.h"

namespace kcoll {
namespace models {
namespace {

Profile Example() {
  Profile p;
  p.intra = {1.25e-6, 1.0 / 600e9};
  p.inter = {5e-6, 1.0 / 100e9};
  p.gamma_s_per_byte = 1.0 / 37e9;
  p.memcpy_bytes_per_s = 2.5e10;
  p.description = "test machine \"a\", 2 sockets";
  return p;
}

void ExpectSame(const Profile& a, const Profile& b) {
  EXPECT_EQ(a.intra.alpha_s, b.intra.alpha_s);
  EXPECT_EQ(a.intra.beta_s_per_byte, b.intra.beta_s_per_byte);
  EXPECT_EQ(a.inter.alpha_s, b.inter.alpha_s);
  EXPECT_EQ(a.inter.beta_s_per_byte, b.inter.beta_s_per_byte);
  EXPECT_EQ(a.gamma_s_per_byte, b.gamma_s_per_byte);
  EXPECT_EQ(a.memcpy_bytes_per_s, b.memcpy_bytes_per_s);
  EXPECT_EQ(a.rank_core_share, b.rank_core_share);
  EXPECT_EQ(a.shm_single_copy_bytes, b.shm_single_copy_bytes);
  EXPECT_EQ(a.shm_slot_bytes, b.shm_slot_bytes);
  EXPECT_EQ(a.vendor_all_reduce_bytes, b.vendor_all_reduce_bytes);
  EXPECT_EQ(a.description, b.description);
}

TEST(ProfileJsonTest, RoundTripsExactly) {
  const std::string text = ProfileToJson(Example());
  ExpectSame(Unwrap(ProfileFromJson(text)), Example());
  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j["schema_version"], kProfileSchemaVersion);
  EXPECT_EQ(j["intra"]["alpha_s"], 1.25e-6);
}

TEST(ProfileJsonTest, CurvesAndOverlapRoundTrip) {
  Profile p = Example();
  p.intra.curve = MeasuredCurve{{{8, 2e-7}, {65536, 5e-6}, {1 << 26, 1.4e-2}}, false};
  p.gamma_curve = MeasuredCurve{{{4096, 1.3e-7}, {1 << 26, 1.1e-2}}, true, 2};
  p.transfers_use_cores = true;
  const std::string text = ProfileToJson(p);
  const Profile q = Unwrap(ProfileFromJson(text));
  ExpectSame(q, p);
  ASSERT_EQ(q.intra.curve.points.size(), 3u);
  EXPECT_EQ(q.intra.curve.points[1].bytes, 65536);
  EXPECT_EQ(q.intra.curve.points[2].seconds, 1.4e-2);
  EXPECT_FALSE(q.intra.curve.proportional);
  EXPECT_TRUE(q.inter.curve.empty());
  ASSERT_EQ(q.gamma_curve.points.size(), 2u);
  EXPECT_TRUE(q.gamma_curve.proportional);
  EXPECT_EQ(q.gamma_curve.buffer_per_message, 2);
  EXPECT_EQ(q.intra.curve.buffer_per_message, 1);
  // A curve measured alone writes no buffer_per_message; one measured in a step does.
  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_FALSE(j["intra"].contains("curve_buffer_per_message"));
  EXPECT_EQ(j["gamma_curve_buffer_per_message"], 2);
  EXPECT_TRUE(q.transfers_use_cores);
  // Absent: no curves, transfers overlap reductions.
  const Profile plain = Unwrap(ProfileFromJson(ProfileToJson(Example())));
  EXPECT_TRUE(plain.intra.curve.empty());
  EXPECT_TRUE(plain.gamma_curve.empty());
  EXPECT_FALSE(plain.transfers_use_cores);
}

// A link's one-stream curve (measured across real nodes) is saved beside its curve and read back point for point.
TEST(ProfileJsonTest, OneStreamCurveRoundTrips) {
  Profile p = Example();
  p.inter.curve = MeasuredCurve{{{16, 4.7e-5}, {2 << 20, 5.4e-2}}, false, 1};
  p.inter.one_stream_curve = MeasuredCurve{{{8, 3.1e-5}, {1 << 20, 2.6e-2}}, false, 2};
  const std::string text = ProfileToJson(p);
  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_TRUE(j["inter"].contains("one_stream_curve"));
  EXPECT_EQ(j["inter"]["one_stream_curve_buffer_per_message"], 2);
  EXPECT_FALSE(j["intra"].contains("one_stream_curve"));
  const Profile q = Unwrap(ProfileFromJson(text));
  ASSERT_EQ(q.inter.one_stream_curve.points.size(), 2u);
  EXPECT_EQ(q.inter.one_stream_curve.points[0].bytes, 8);
  EXPECT_EQ(q.inter.one_stream_curve.points[1].seconds, 2.6e-2);
  EXPECT_EQ(q.inter.one_stream_curve.buffer_per_message, 2);
  EXPECT_EQ(q.inter.curve.points[1].seconds, 5.4e-2);
  EXPECT_TRUE(q.intra.one_stream_curve.empty());
  // A bad one is named.
  nlohmann::json bad = j;
  bad["inter"]["one_stream_curve"] = {{8, 1e-6}, {8, 2e-6}};
  EXPECT_THAT(ProfileFromJson(bad.dump()), IsInvalidArgument("inter.one_stream_curve[1] bytes=8"));
  bad["inter"]["one_stream_curve"] = 3;
  EXPECT_THAT(ProfileFromJson(bad.dump()),
              IsInvalidArgument("'inter.one_stream_curve' must be an array of [bytes, seconds]"));
}

TEST(ProfileJsonTest, BadCurvesAreNamed) {
  nlohmann::json j = nlohmann::json::parse(ProfileToJson(Example()));
  j["intra"]["curve"] = "fast";
  EXPECT_THAT(ProfileFromJson(j.dump()), IsInvalidArgument("'intra.curve' must be an array of [bytes, seconds]"));
  j["intra"]["curve"] = {{8, 1e-6}, {16}};
  EXPECT_THAT(ProfileFromJson(j.dump()), IsInvalidArgument("'intra.curve[1]' must be [bytes, seconds], not [16]"));
  j["intra"]["curve"] = {{8, 1e-6}, {4, 2e-6}};
  EXPECT_THAT(ProfileFromJson(j.dump()), IsInvalidArgument("intra.curve[1] bytes=4"));
  j["intra"].erase("curve");
  j["gamma_curve"] = {{4096, -1.0}, {8192, 1e-6}};
  EXPECT_THAT(ProfileFromJson(j.dump()), IsInvalidArgument("gamma_curve[0] seconds=-1"));
  j["gamma_curve"] = {{4096, 1e-6}, {8192, 2e-6}};
  j["gamma_curve_buffer_per_message"] = "2";
  EXPECT_THAT(ProfileFromJson(j.dump()),
              IsInvalidArgument("profile field 'gamma_curve_buffer_per_message' must be a number, not string \"2\""));
  j["gamma_curve_buffer_per_message"] = -0.5;
  EXPECT_THAT(ProfileFromJson(j.dump()),
              IsInvalidArgument("gamma_curve buffer_per_message=-0.5 must be finite and > 0"));
  j.erase("gamma_curve");
  j.erase("gamma_curve_buffer_per_message");
  j["intra"]["curve"] = {{8, 1e-6}, {16, 2e-6}};
  j["intra"]["curve_buffer_per_message"] = 0;
  EXPECT_THAT(ProfileFromJson(j.dump()), IsInvalidArgument("intra.curve buffer_per_message=0 must be finite and > 0"));
  j["intra"].erase("curve");
  j["intra"].erase("curve_buffer_per_message");
  j["transfers_use_cores"] = 1;
  EXPECT_THAT(ProfileFromJson(j.dump()), IsInvalidArgument("'transfers_use_cores' must be true or false"));
}

// The share of a core the ranks had: saved, read back, 1 when absent, and refused outside (0, 1].
TEST(ProfileJsonTest, RankCoreShare) {
  Profile p = Example();
  p.rank_core_share = 0.5;
  ExpectSame(Unwrap(ProfileFromJson(ProfileToJson(p))), p);
  nlohmann::json j = nlohmann::json::parse(ProfileToJson(Example()));
  j.erase("rank_core_share");
  EXPECT_EQ(Unwrap(ProfileFromJson(j.dump())).rank_core_share, 1);
  for (double bad : {0.0, -0.5, 1.5}) {
    j["rank_core_share"] = bad;
    EXPECT_THAT(ProfileFromJson(j.dump()),
                IsInvalidArgument(absl::StrCat("rank_core_share=", bad, " must be in (0, 1]")));
  }
  j["rank_core_share"] = "half";
  EXPECT_THAT(ProfileFromJson(j.dump()), IsInvalidArgument("'rank_core_share' must be a number, not string"));
}

// The measured single-copy threshold: written only when measured, read back (0 means never), refused when it is
// not a whole number of bytes in range.
TEST(ProfileJsonTest, ShmSingleCopyBytes) {
  EXPECT_FALSE(nlohmann::json::parse(ProfileToJson(Example())).contains("shm_single_copy_bytes"));
  EXPECT_FALSE(Unwrap(ProfileFromJson(ProfileToJson(Example()))).shm_single_copy_bytes.has_value());
  for (int64_t bytes : {int64_t{0}, int64_t{262144}}) {
    Profile p = Example();
    p.shm_single_copy_bytes = bytes;
    const Profile q = Unwrap(ProfileFromJson(ProfileToJson(p)));
    ExpectSame(q, p);
    ASSERT_TRUE(q.shm_single_copy_bytes.has_value());
    EXPECT_EQ(*q.shm_single_copy_bytes, bytes);
  }
  nlohmann::json j = nlohmann::json::parse(ProfileToJson(Example()));
  j["shm_single_copy_bytes"] = 65536.5;
  EXPECT_THAT(ProfileFromJson(j.dump()),
              IsInvalidArgument("'shm_single_copy_bytes' must be a whole number of bytes, not number 65536.5"));
  j["shm_single_copy_bytes"] = "64K";
  EXPECT_THAT(ProfileFromJson(j.dump()), IsInvalidArgument("'shm_single_copy_bytes' must be a whole number of bytes"));
  j["shm_single_copy_bytes"] = -1;
  EXPECT_THAT(ProfileFromJson(j.dump()), IsInvalidArgument("shm_single_copy_bytes=-1 must be in [0, 1099511627776]"));
  j["shm_single_copy_bytes"] = int64_t{1} << 41;
  EXPECT_THAT(ProfileFromJson(j.dump()), IsInvalidArgument("shm_single_copy_bytes=2199023255552 must be in [0, "));
}

// The measured slot size: written only when measured, read back, refused unless a multiple of 64 in range.
TEST(ProfileJsonTest, ShmSlotBytes) {
  EXPECT_FALSE(nlohmann::json::parse(ProfileToJson(Example())).contains("shm_slot_bytes"));
  Profile p = Example();
  p.shm_slot_bytes = 262144;
  const Profile q = Unwrap(ProfileFromJson(ProfileToJson(p)));
  ExpectSame(q, p);
  EXPECT_EQ(q.shm_slot_bytes, std::optional<int64_t>(262144));
  nlohmann::json j = nlohmann::json::parse(ProfileToJson(Example()));
  j["shm_slot_bytes"] = "256K";
  EXPECT_THAT(ProfileFromJson(j.dump()),
              IsInvalidArgument("'shm_slot_bytes' must be a whole number of bytes, not string \"256K\""));
  for (int64_t bad : {int64_t{0}, int64_t{100}, int64_t{1} << 31}) {
    j["shm_slot_bytes"] = bad;
    EXPECT_THAT(
        ProfileFromJson(j.dump()),
        IsInvalidArgument(absl::StrCat("shm_slot_bytes=", bad, " must be a multiple of 64 in [64, 1073741824]")));
  }
}

// The sizes handed to MPI's own AllReduce: written only when there are some, read back, refused unless ranges of
// whole byte counts in increasing order.
TEST(ProfileJsonTest, VendorAllReduceBytes) {
  EXPECT_FALSE(nlohmann::json::parse(ProfileToJson(Example())).contains("vendor_all_reduce_bytes"));
  EXPECT_TRUE(Unwrap(ProfileFromJson(ProfileToJson(Example()))).vendor_all_reduce_bytes.empty());
  Profile p = Example();
  p.vendor_all_reduce_bytes = {{8, 8}, {2048, 8192}};
  const Profile q = Unwrap(ProfileFromJson(ProfileToJson(p)));
  ExpectSame(q, p);
  EXPECT_EQ(q.vendor_all_reduce_bytes, (std::vector<std::pair<int64_t, int64_t>>{{8, 8}, {2048, 8192}}));
  nlohmann::json j = nlohmann::json::parse(ProfileToJson(Example()));
  for (const char* bad : {R"("2K-8K")", "[2048, 8192]", "[[2048]]", "[[2048, 8192.5]]"}) {
    j["vendor_all_reduce_bytes"] = nlohmann::json::parse(bad);
    EXPECT_THAT(ProfileFromJson(j.dump()), IsInvalidArgument("'vendor_all_reduce_bytes' must be a list of [first, "
                                                             "last] byte ranges"))
        << bad;
  }
  j["vendor_all_reduce_bytes"] = nlohmann::json::parse("[[8192, 2048]]");
  EXPECT_THAT(ProfileFromJson(j.dump()), IsInvalidArgument("range [8192, 2048] must have 1 <= first <= last"));
  j["vendor_all_reduce_bytes"] = nlohmann::json::parse("[[0, 8]]");
  EXPECT_THAT(ProfileFromJson(j.dump()), IsInvalidArgument("range [0, 8] must have 1 <= first"));
  j["vendor_all_reduce_bytes"] = nlohmann::json::parse("[[2048, 8192], [4096, 16384]]");
  EXPECT_THAT(ProfileFromJson(j.dump()), IsInvalidArgument("which ended at 8192"));
}

TEST(ProfileJsonTest, DescriptionIsOptionalAndUnknownKeysAreIgnored) {
  const Profile p = Unwrap(ProfileFromJson(R"({"schema_version": 1, "future_field": [1, 2],
      "intra": {"alpha_s": 1e-6, "beta_s_per_byte": 1e-12, "note": "x"},
      "inter": {"alpha_s": 0, "beta_s_per_byte": 0}, "gamma_s_per_byte": 0, "memcpy_bytes_per_s": 0})"));
  EXPECT_EQ(p.intra.alpha_s, 1e-6);
  EXPECT_EQ(p.description, "");
}

// Removes `path` (dotted) from the example's JSON.
std::string Without(const std::string& key, const std::string& inner = "") {
  nlohmann::json j = nlohmann::json::parse(ProfileToJson(Example()));
  if (inner.empty()) {
    j.erase(key);
  } else {
    j[key].erase(inner);
  }
  return j.dump();
}

TEST(ProfileJsonTest, MissingFieldsAreNamed) {
  EXPECT_THAT(ProfileFromJson(Without("schema_version")), IsInvalidArgument("'schema_version' is missing"));
  EXPECT_THAT(ProfileFromJson(Without("intra")), IsInvalidArgument("'intra' is missing"));
  EXPECT_THAT(ProfileFromJson(Without("inter")), IsInvalidArgument("'inter' is missing"));
  EXPECT_THAT(ProfileFromJson(Without("intra", "alpha_s")), IsInvalidArgument("'intra.alpha_s' is missing"));
  EXPECT_THAT(ProfileFromJson(Without("inter", "beta_s_per_byte")),
              IsInvalidArgument("'inter.beta_s_per_byte' is missing"));
  EXPECT_THAT(ProfileFromJson(Without("gamma_s_per_byte")), IsInvalidArgument("'gamma_s_per_byte' is missing"));
  EXPECT_THAT(ProfileFromJson(Without("memcpy_bytes_per_s")), IsInvalidArgument("'memcpy_bytes_per_s' is missing"));
}

TEST(ProfileJsonTest, BadValuesAreNamed) {
  nlohmann::json j = nlohmann::json::parse(ProfileToJson(Example()));
  j["intra"]["alpha_s"] = "fast";
  EXPECT_THAT(ProfileFromJson(j.dump()), IsInvalidArgument("'intra.alpha_s' must be a number, not string"));
  j = nlohmann::json::parse(ProfileToJson(Example()));
  j["inter"] = 5;
  EXPECT_THAT(ProfileFromJson(j.dump()), IsInvalidArgument("'inter' must be an object"));
  j = nlohmann::json::parse(ProfileToJson(Example()));
  j["schema_version"] = 2;
  EXPECT_THAT(ProfileFromJson(j.dump()), IsInvalidArgument("'schema_version' is 2"));
  j = nlohmann::json::parse(ProfileToJson(Example()));
  j["inter"]["beta_s_per_byte"] = -1;
  EXPECT_THAT(ProfileFromJson(j.dump()), IsInvalidArgument("inter.beta_s_per_byte=-1"));
  j = nlohmann::json::parse(ProfileToJson(Example()));
  j["description"] = 3;
  EXPECT_THAT(ProfileFromJson(j.dump()), IsInvalidArgument("'description' must be a string"));
  EXPECT_THAT(ProfileFromJson("{\"schema_version\": 1,"), IsInvalidArgument("not valid JSON"));
  EXPECT_THAT(ProfileFromJson("[1, 2]"), IsInvalidArgument("expected an object, not array"));
  EXPECT_THAT(ProfileFromJson(""), IsInvalidArgument("not valid JSON"));
}

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

TEST(ProfileFileTest, SaveAndLoad) {
  const std::string path = TempPath("kcoll_profile_test.json");
  ASSERT_TRUE(SaveProfile(Example(), path).ok());
  ExpectSame(Unwrap(LoadProfile(path)), Example());
  std::remove(path.c_str());
}

TEST(ProfileFileTest, Errors) {
  const absl::StatusOr<Profile> missing = LoadProfile(TempPath("no_such_profile.json"));
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("no_such_profile.json"));
  EXPECT_THAT(SaveProfile(Example(), TempPath("no/such/dir/p.json")), IsInvalidArgument("cannot be written"));
  Profile bad = Example();
  bad.intra.alpha_s = -1;
  EXPECT_THAT(SaveProfile(bad, TempPath("bad.json")), IsInvalidArgument("intra.alpha_s=-1"));
  // A file with a bad field: the error names the file and the field.
  const std::string path = TempPath("kcoll_bad_profile.json");
  std::ofstream(path) << Without("gamma_s_per_byte");
  EXPECT_THAT(LoadProfile(path), IsInvalidArgument("kcoll_bad_profile.json: profile field 'gamma_s_per_byte'"));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace models
}  // namespace kcoll
