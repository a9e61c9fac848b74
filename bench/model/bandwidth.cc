#include "bench/model/bandwidth.h"

#include <algorithm>
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "models/bandwidth/bus_bandwidth.h"
#include "models/bandwidth/ideal_bandwidth.h"
#include "models/profile_json.h"

namespace kcoll {
namespace bench {

static_assert(kBytesPerGB == models::kBytesPerGB, "the benchmarks print the models' GB");

double BusBwFactor(Collective collective, int nranks) { return models::BusBwFactor(collective, nranks).value_or(0.0); }

double AlgBwGBps(double bytes, double seconds) { return models::AlgBw(bytes, seconds).value_or(0.0) / kBytesPerGB; }

double BusBwGBps(Collective collective, double bytes, double seconds, int nranks) {
  return models::BusBw(collective, bytes, seconds, nranks).value_or(0.0) / kBytesPerGB;
}

double IdealBusBwAtSize(Collective collective, double bytes, int nranks, double bandwidth_gbps, double floor_s) {
  const double at_floor = floor_s > 0 ? BusBwGBps(collective, bytes, floor_s, nranks) : 0;
  if (at_floor <= 0) return std::max(bandwidth_gbps, 0.0);
  return bandwidth_gbps > 0 ? std::min(bandwidth_gbps, at_floor) : at_floor;
}

absl::StatusOr<double> IdealBusBwGBps(const IdealInputs& in) {
  models::IdealBandwidthInputs inputs;
  inputs.intra_bw = in.intra_gbps * kBytesPerGB;
  inputs.inter_bw = in.inter_gbps * kBytesPerGB;
  inputs.ranks_per_node = in.ranks_per_node;
  inputs.nodes = in.nodes;
  absl::StatusOr<double> ideal = models::IdealBusBw(inputs);
  if (!ideal.ok()) return absl::Status(ideal.status().code(), absl::StrCat("ideal busbw: ", ideal.status().message()));
  return *ideal / kBytesPerGB;
}

absl::StatusOr<ProfileBandwidths> LoadProfileBandwidths(const std::string& path) {
  absl::StatusOr<models::Profile> profile = models::LoadProfile(path);
  if (!profile.ok()) return absl::InvalidArgumentError(profile.status().message());
  ProfileBandwidths out;
  out.intra_gbps = profile->intra.PeakBytesPerSecond() / kBytesPerGB;
  out.inter_gbps = profile->inter.PeakBytesPerSecond() / kBytesPerGB;
  out.description = profile->description;
  if (!std::isfinite(out.intra_gbps)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": intra.beta_s_per_byte is 0 (an infinitely fast link has no ideal busbw)"));
  }
  return out;
}

}  // namespace bench
}  // namespace kcoll
