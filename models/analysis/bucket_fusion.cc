#include "models/analysis/bucket_fusion.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "models/algorithm_choice.h"

namespace kcoll {
namespace models {

absl::StatusOr<BucketFusionEstimate> EstimateBucketFusion(const BucketFusionInputs& in, const Topology& topology,
                                                          const Profile& profile, const CostOptions& options) {
  if (in.tensors < 1) return absl::InvalidArgumentError(absl::StrCat("tensors=", in.tensors, " must be >= 1"));
  if (!std::isfinite(in.tensor_bytes) || in.tensor_bytes <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("tensor_bytes=", in.tensor_bytes, " must be finite and > 0"));
  }
  if (!std::isfinite(in.bucket_bytes) || in.bucket_bytes <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("bucket_bytes=", in.bucket_bytes, " must be finite and > 0"));
  }
  absl::StatusOr<AlgorithmChooser> chooser = AlgorithmChooser::Create(topology, profile, options, {in.collective});
  if (!chooser.ok()) return chooser.status();
  if (in.algorithm != Algorithm::kAuto && chooser->Model(in.collective, in.algorithm) == nullptr) {
    // Let CostModel::Create phrase the error.
    return CostModel::Create(in.collective, in.algorithm, topology, profile, options).status();
  }
  // The algorithm and cost of one call of `bytes`.
  auto call = [&](double bytes) -> std::pair<Algorithm, double> {
    const Algorithm a = in.algorithm == Algorithm::kAuto ? *chooser->Choose(in.collective, bytes) : in.algorithm;
    return {a, chooser->Model(in.collective, a)->Seconds(bytes)};
  };
  BucketFusionEstimate out;
  const double total = static_cast<double>(in.tensors) * in.tensor_bytes;
  const auto [tensor_algorithm, tensor_seconds] = call(in.tensor_bytes);
  out.tensor_algorithm = tensor_algorithm;
  out.unbucketed_seconds = static_cast<double>(in.tensors) * tensor_seconds;
  const double calls = std::ceil(total / in.bucket_bytes);
  out.bucketed_calls = static_cast<int64_t>(calls);
  out.last_bucket_bytes = total - (calls - 1) * in.bucket_bytes;
  const auto [bucket_algorithm, bucket_seconds] = call(in.bucket_bytes);
  out.bucket_algorithm = calls > 1 ? bucket_algorithm : call(out.last_bucket_bytes).first;
  out.bucketed_seconds = (calls - 1) * bucket_seconds + call(out.last_bucket_bytes).second;
  out.speedup = out.bucketed_seconds > 0 ? out.unbucketed_seconds / out.bucketed_seconds : 0;
  return out;
}

}  // namespace models
}  // namespace kcoll
