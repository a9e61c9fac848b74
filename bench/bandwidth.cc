#include "bench/bandwidth.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace kcoll {
namespace bench {

double BusBwFactor(Collective collective, int nranks) {
  if (nranks < 1) return 0;
  const double n = nranks;
  switch (collective) {
    case Collective::kAllReduce:
      return 2 * (n - 1) / n;
    case Collective::kReduceScatter:
    case Collective::kAllGather:
    case Collective::kAllToAll:
    case Collective::kGather:
    case Collective::kScatter:
      return (n - 1) / n;
    case Collective::kBroadcast:
    case Collective::kReduce:
    case Collective::kSendRecv:
      return 1;
    case Collective::kBarrier:
      return 0;
  }
  return 0;
}

double AlgBwGBps(double bytes, double seconds) { return seconds > 0 ? bytes / seconds / kBytesPerGB : 0; }

double BusBwGBps(Collective collective, double bytes, double seconds, int nranks) {
  return AlgBwGBps(bytes, seconds) * BusBwFactor(collective, nranks);
}

absl::StatusOr<double> IdealBusBwGBps(const IdealInputs& in) {
  if (!(in.intra_gbps > 0) || !std::isfinite(in.intra_gbps)) {
    return absl::InvalidArgumentError(absl::StrCat("intra_bw must be a positive number of GB/s, got ", in.intra_gbps));
  }
  if (in.ranks_per_node < 1 || in.nodes < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("placement: ", in.nodes, " nodes x ", in.ranks_per_node, " ranks per node"));
  }
  if (in.nodes == 1) return in.intra_gbps;
  if (!(in.inter_gbps > 0) || !std::isfinite(in.inter_gbps)) {
    return absl::InvalidArgumentError(
        absl::StrCat("inter_bw must be a positive number of GB/s on ", in.nodes, " nodes, got ", in.inter_gbps));
  }
  const double q = in.nodes, n = static_cast<double>(in.nodes) * in.ranks_per_node;
  if (in.ranks_per_node == 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("one rank per node on ", in.nodes, " nodes: the intra-node term has no data"));
  }
  const double inter_term = in.inter_gbps * (n - 1) * q / (n * (q - 1));
  const double intra_term = in.intra_gbps * (n - 1) / (n - q);
  return std::min(inter_term, intra_term);
}

namespace {

absl::StatusOr<double> BandwidthOf(const nlohmann::json& doc, const char* link, const std::string& path,
                                   bool required) {
  const std::string field = absl::StrCat(link, ".beta_s_per_byte");
  if (!doc.contains(link) || !doc[link].is_object() || !doc[link].contains("beta_s_per_byte")) {
    if (!required) return 0.0;
    return absl::InvalidArgumentError(absl::StrCat("profile ", path, ": missing field ", field));
  }
  const nlohmann::json& beta = doc[link]["beta_s_per_byte"];
  if (!beta.is_number())
    return absl::InvalidArgumentError(absl::StrCat("profile ", path, ": ", field, " not a number"));
  const double b = beta.get<double>();
  if (!(b > 0) || !std::isfinite(b)) {
    return absl::InvalidArgumentError(absl::StrCat("profile ", path, ": ", field, " must be > 0, got ", b));
  }
  return 1.0 / b / kBytesPerGB;
}

}  // namespace

absl::StatusOr<ProfileBandwidths> LoadProfileBandwidths(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::InvalidArgumentError(absl::StrCat("profile ", path, ": cannot be read"));
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json doc = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat("profile ", path, ": not a JSON object"));
  }
  if (!doc.contains("schema_version") || !doc["schema_version"].is_number_integer() || doc["schema_version"] != 1) {
    return absl::InvalidArgumentError(absl::StrCat("profile ", path, ": schema_version must be 1"));
  }
  ProfileBandwidths out;
  auto intra = BandwidthOf(doc, "intra", path, /*required=*/true);
  if (!intra.ok()) return intra.status();
  auto inter = BandwidthOf(doc, "inter", path, /*required=*/false);
  if (!inter.ok()) return inter.status();
  out.intra_gbps = *intra;
  out.inter_gbps = *inter;
  if (doc.contains("description") && doc["description"].is_string()) out.description = doc["description"];
  return out;
}

}  // namespace bench
}  // namespace kcoll
