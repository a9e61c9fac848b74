#include "models/bandwidth/ideal_bandwidth.h"

#include <cmath>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "models/bandwidth/bus_bandwidth.h"

namespace kcoll {
namespace models {

absl::StatusOr<IdealBandwidth> ComputeIdealBandwidth(const IdealBandwidthInputs& in) {
  if (in.nodes < 1) return absl::InvalidArgumentError(absl::StrCat("nodes=", in.nodes, " must be >= 1"));
  if (in.ranks_per_node < 1) {
    return absl::InvalidArgumentError(absl::StrCat("ranks_per_node=", in.ranks_per_node, " must be >= 1"));
  }
  // One rank per node on several nodes moves nothing within a node: the intra-node term is not needed.
  const bool alone = in.ranks_per_node == 1 && in.nodes > 1;
  if (!alone && (!std::isfinite(in.intra_bw) || in.intra_bw <= 0)) {
    return absl::InvalidArgumentError(absl::StrCat("intra_bw=", in.intra_bw, " must be finite and > 0"));
  }
  IdealBandwidth out;
  if (in.nodes == 1) {
    out.busbw = out.intra_term = in.intra_bw;
    out.inter_term = std::numeric_limits<double>::infinity();
    return out;
  }
  if (!std::isfinite(in.inter_bw) || in.inter_bw <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("inter_bw=", in.inter_bw, " must be finite and > 0 when nodes=", in.nodes, " > 1"));
  }
  const double q = in.nodes;
  if (alone) {
    // N = Q: D_Intra = D (N-Q)/(N-1) = 0 and the ideal time is the inter-node term's alone, I (N-1) Q / (N) = I.
    out.inter_term = in.inter_bw;
    out.intra_term = std::numeric_limits<double>::infinity();
    out.inter_limited = true;
    out.busbw = out.inter_term;
    return out;
  }
  const double n = q * in.ranks_per_node;
  out.inter_term = in.inter_bw * (n - 1) * q / (n * (q - 1));
  out.intra_term = in.intra_bw * (n - 1) / (n - q);
  out.inter_limited = out.inter_term < out.intra_term;
  out.busbw = out.inter_limited ? out.inter_term : out.intra_term;
  return out;
}

absl::StatusOr<double> IdealBusBw(const IdealBandwidthInputs& inputs) {
  absl::StatusOr<IdealBandwidth> ideal = ComputeIdealBandwidth(inputs);
  if (!ideal.ok()) return ideal.status();
  return ideal->busbw;
}

absl::StatusOr<double> Efficiency(double busbw, double ideal_busbw) {
  return CheckedRatio("busbw", busbw, "ideal_busbw", ideal_busbw);
}

}  // namespace models
}  // namespace kcoll
