#include "models/machine.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/byte_size.h"

namespace kcoll {
namespace models {

absl::StatusOr<LinkParams> LinkParams::FromBandwidth(double latency_s, double bytes_per_s) {
  if (!std::isfinite(latency_s) || latency_s < 0) {
    return absl::InvalidArgumentError(absl::StrCat("latency_s=", latency_s, " must be finite and >= 0"));
  }
  if (!std::isfinite(bytes_per_s) || bytes_per_s <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("bytes_per_s=", bytes_per_s, " must be finite and > 0"));
  }
  return LinkParams{latency_s, 1.0 / bytes_per_s};
}

double LinkParams::BytesPerSecond() const {
  return beta_s_per_byte > 0 ? 1.0 / beta_s_per_byte : std::numeric_limits<double>::infinity();
}

double LinkParams::PeakBytesPerSecond() const {
  double peak = BytesPerSecond();
  for (const MeasuredCurve* c : {&curve, &one_stream_curve}) {
    for (const CurvePoint& p : c->points) {
      if (p.seconds > 0) peak = std::max(peak, p.bytes / p.seconds);
    }
  }
  return peak;
}

absl::Status ValidateTopology(const Topology& topology) {
  if (topology.nodes < 1) {
    return absl::InvalidArgumentError(absl::StrCat("topology nodes=", topology.nodes, " must be >= 1"));
  }
  if (topology.ranks_per_node < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("topology ranks_per_node=", topology.ranks_per_node, " must be >= 1"));
  }
  if (topology.nics_per_node < 1) {
    return absl::InvalidArgumentError(absl::StrCat("topology nics_per_node=", topology.nics_per_node, " must be >= 1"));
  }
  if (topology.intra_links_per_rank < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("topology intra_links_per_rank=", topology.intra_links_per_rank, " must be >= 0"));
  }
  if (topology.ranks() > kMaxRanks) {
    return absl::InvalidArgumentError(absl::StrCat("topology nodes=", topology.nodes,
                                                   " x ranks_per_node=", topology.ranks_per_node, " = ",
                                                   topology.ranks(), " ranks exceeds the limit of ", kMaxRanks));
  }
  return absl::OkStatus();
}

namespace {

absl::Status CheckNonNegative(double value, absl::string_view name) {
  if (!std::isfinite(value) || value < 0) {
    return absl::InvalidArgumentError(absl::StrCat("profile ", name, "=", value, " must be finite and >= 0"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateLinkParams(const LinkParams& link, absl::string_view name) {
  if (absl::Status s = CheckNonNegative(link.alpha_s, absl::StrCat(name, ".alpha_s")); !s.ok()) return s;
  if (absl::Status s = CheckNonNegative(link.beta_s_per_byte, absl::StrCat(name, ".beta_s_per_byte")); !s.ok()) {
    return s;
  }
  if (absl::Status s = ValidateCurve(link.curve, absl::StrCat("profile ", name, ".curve")); !s.ok()) return s;
  return ValidateCurve(link.one_stream_curve, absl::StrCat("profile ", name, ".one_stream_curve"));
}

absl::Status ValidateProfile(const Profile& profile) {
  if (absl::Status s = ValidateLinkParams(profile.intra, "intra"); !s.ok()) return s;
  if (absl::Status s = ValidateLinkParams(profile.inter, "inter"); !s.ok()) return s;
  if (absl::Status s = CheckNonNegative(profile.gamma_s_per_byte, "gamma_s_per_byte"); !s.ok()) return s;
  if (absl::Status s = ValidateCurve(profile.gamma_curve, "profile gamma_curve"); !s.ok()) return s;
  if (!profile.gamma_curve.empty() && !profile.gamma_curve.proportional) {
    return absl::InvalidArgumentError("profile gamma_curve must be proportional (a reduction of 0 bytes is free)");
  }
  if (!(profile.rank_core_share > 0 && profile.rank_core_share <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("profile rank_core_share=", profile.rank_core_share, " must be in (0, 1]"));
  }
  if (profile.shm_single_copy_bytes.has_value() &&
      (*profile.shm_single_copy_bytes < 0 || *profile.shm_single_copy_bytes > kMaxSingleCopyBytes)) {
    return absl::InvalidArgumentError(absl::StrCat("profile shm_single_copy_bytes=", *profile.shm_single_copy_bytes,
                                                   " must be in [0, ", kMaxSingleCopyBytes, "]"));
  }
  if (profile.shm_slot_bytes.has_value() &&
      (*profile.shm_slot_bytes < 64 || *profile.shm_slot_bytes > kMaxSlotBytes || *profile.shm_slot_bytes % 64 != 0)) {
    return absl::InvalidArgumentError(absl::StrCat("profile shm_slot_bytes=", *profile.shm_slot_bytes,
                                                   " must be a multiple of 64 in [64, ", kMaxSlotBytes, "]"));
  }
  int64_t previous_last = 0;
  for (const auto& [first, last] : profile.vendor_all_reduce_bytes) {
    if (first < 1 || last < first || first <= previous_last) {
      return absl::InvalidArgumentError(absl::StrCat(
          "profile vendor_all_reduce_bytes range [", first, ", ", last,
          "] must have 1 <= first <= last and lie above the range before it (which ended at ", previous_last, ")"));
    }
    previous_last = last;
  }
  return CheckNonNegative(profile.memcpy_bytes_per_s, "memcpy_bytes_per_s");
}

std::string FormatVendorSizes(const std::vector<std::pair<int64_t, int64_t>>& ranges) {
  if (ranges.empty()) return "none";
  std::vector<std::string> parts;
  for (const auto& [first, last] : ranges) {
    parts.push_back(first == last ? FormatByteSize(static_cast<size_t>(first))
                                  : absl::StrCat(FormatByteSize(static_cast<size_t>(first)), "-",
                                                 FormatByteSize(static_cast<size_t>(last))));
  }
  return absl::StrJoin(parts, ", ");
}

std::string TopologyToString(const Topology& topology) {
  return absl::StrCat(topology.nodes, topology.nodes == 1 ? " node" : " nodes", " x ", topology.ranks_per_node,
                      topology.ranks_per_node == 1 ? " rank" : " ranks", " (", topology.ranks(),
                      topology.ranks() == 1 ? " rank, " : " ranks, ", topology.nics_per_node,
                      topology.nics_per_node == 1 ? " NIC" : " NICs", " per node",
                      topology.intra_links_per_rank == 0
                          ? ""
                          : absl::StrCat(", ", topology.intra_links_per_rank, " intra-node link",
                                         topology.intra_links_per_rank == 1 ? "" : "s", " per rank"),
                      ")");
}

}  // namespace models
}  // namespace kcoll
