// What fusing many small tensors into buckets saves (as PyTorch DDP does with gradients): K tensors of s bytes each,
// reduced one call per tensor or one call per bucket of up to B bytes.
//
//   unbucketed = K * cost(s)
//   bucketed   = (calls - 1) * cost(B) + cost(last),  calls = ceil(K s / B),  last = K s - (calls - 1) B
//
// The bucketed form treats the tensors as one flat buffer cut into buckets of B bytes (tensors may straddle
// buckets), as the bucket size is usually much larger than one tensor.
#ifndef KCOLL_MODELS_ANALYSIS_BUCKET_FUSION_H_
#define KCOLL_MODELS_ANALYSIS_BUCKET_FUSION_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "base/names.h"
#include "models/cost_model.h"
#include "models/machine.h"

namespace kcoll {
namespace models {

// PyTorch DistributedDataParallel's default bucket_cap_mb = 25, i.e. 25 MiB.
inline constexpr double kDdpBucketBytes = 25.0 * 1024 * 1024;

struct BucketFusionInputs {
  int64_t tensors = 0;                    // K
  double tensor_bytes = 0;                // s
  double bucket_bytes = kDdpBucketBytes;  // B
  Collective collective = Collective::kAllReduce;
  // The algorithm of every call; kAuto lets ChooseAlgorithm pick per call size.
  Algorithm algorithm = Algorithm::kAuto;
};

struct BucketFusionEstimate {
  double unbucketed_seconds = 0;
  double bucketed_seconds = 0;
  int64_t bucketed_calls = 0;
  double last_bucket_bytes = 0;
  Algorithm tensor_algorithm = Algorithm::kAuto;  // the algorithm of a per-tensor call
  Algorithm bucket_algorithm = Algorithm::kAuto;  // the algorithm of the largest bucketed call
  double speedup = 0;                             // unbucketed / bucketed (0 when both are 0)
};

// InvalidArgument naming the field: tensors >= 1, tensor_bytes > 0, bucket_bytes > 0 (finite); the algorithm must
// apply to the collective (or be kAuto); topology, profile and options as for CostModel::Create.
absl::StatusOr<BucketFusionEstimate> EstimateBucketFusion(const BucketFusionInputs& inputs, const Topology& topology,
                                                          const Profile& profile, const CostOptions& options = {});

}  // namespace models
}  // namespace kcoll

#endif  // KCOLL_MODELS_ANALYSIS_BUCKET_FUSION_H_
