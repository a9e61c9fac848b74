#include "models/analysis/bucket_fusion.h"

#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/cost_model.h"
#include "models/test_util.h"

namespace kcoll {
namespace models {
namespace {

TEST(BucketFusionTest, DefaultBucketIsDdps25MiB) {
  EXPECT_EQ(kDdpBucketBytes, 26214400.0);
  BucketFusionInputs in;
  in.tensors = 1000;
  in.tensor_bytes = 1e6;
  in.algorithm = Algorithm::kRing;
  const Topology t{1, 8, 1};
  const Profile p = Uniform(10e-6, 100e9);
  const BucketFusionEstimate e = Unwrap(EstimateBucketFusion(in, t, p));
  // 1e9 bytes = 38 full buckets of 25 MiB and a last one of 1e9 - 38 * 26214400 = 3852800 bytes.
  EXPECT_EQ(e.bucketed_calls, 39);
  EXPECT_DOUBLE_EQ(e.last_bucket_bytes, 3852800);
  auto ring = [&](double s) { return Unwrap(PredictSeconds(Collective::kAllReduce, Algorithm::kRing, s, t, p)); };
  EXPECT_NEAR(e.bucketed_seconds, 38 * ring(26214400) + ring(3852800), 1e-15);
  EXPECT_NEAR(e.unbucketed_seconds, 1000 * ring(1e6), 1e-15);
  EXPECT_EQ(e.tensor_algorithm, Algorithm::kRing);
  EXPECT_EQ(e.bucket_algorithm, Algorithm::kRing);
  EXPECT_GT(e.speedup, 1);
}

TEST(BucketFusionTest, OneSmallBucket) {
  BucketFusionInputs in;
  in.tensors = 3;
  in.tensor_bytes = 100;
  in.algorithm = Algorithm::kTree;
  const Profile p = Uniform(1e-6, 10e9);
  const BucketFusionEstimate e = Unwrap(EstimateBucketFusion(in, {1, 4, 1}, p));
  EXPECT_EQ(e.bucketed_calls, 1);
  EXPECT_DOUBLE_EQ(e.last_bucket_bytes, 300);
  EXPECT_NEAR(e.bucketed_seconds, 4 * (1e-6 + 300 / 10e9), 1e-18);
  EXPECT_NEAR(e.unbucketed_seconds, 3 * 4 * (1e-6 + 100 / 10e9), 1e-18);
}

TEST(BucketFusionTest, AutoPicksPerCallSize) {
  BucketFusionInputs in;
  in.tensors = 10000;
  in.tensor_bytes = 4096;
  const Topology t{4, 8, 1};
  const Profile p = TwoLevel(1e-6, 600e9, 5e-6, 100e9);
  const BucketFusionEstimate automatic = Unwrap(EstimateBucketFusion(in, t, p));
  for (Algorithm a : ApplicableAlgorithms(Collective::kAllReduce)) {
    in.algorithm = a;
    const BucketFusionEstimate fixed = Unwrap(EstimateBucketFusion(in, t, p));
    EXPECT_LE(automatic.unbucketed_seconds, fixed.unbucketed_seconds * (1 + 1e-9)) << AlgorithmName(a);
    EXPECT_LE(automatic.bucketed_seconds, fixed.bucketed_seconds * (1 + 1e-9)) << AlgorithmName(a);
  }
  EXPECT_NE(automatic.tensor_algorithm, Algorithm::kAuto);
  EXPECT_NE(automatic.bucket_algorithm, Algorithm::kAuto);
}

TEST(BucketFusionTest, Errors) {
  const Topology t{1, 8, 1};
  const Profile p = Uniform(1e-6, 10e9);
  BucketFusionInputs in;
  in.tensors = 0;
  in.tensor_bytes = 1;
  EXPECT_THAT(EstimateBucketFusion(in, t, p), IsInvalidArgument("tensors=0"));
  in.tensors = 5;
  in.tensor_bytes = -1;
  EXPECT_THAT(EstimateBucketFusion(in, t, p), IsInvalidArgument("tensor_bytes=-1"));
  in.tensor_bytes = 1;
  in.bucket_bytes = 0;
  EXPECT_THAT(EstimateBucketFusion(in, t, p), IsInvalidArgument("bucket_bytes=0"));
  in.bucket_bytes = kDdpBucketBytes;
  in.algorithm = Algorithm::kChain;
  EXPECT_THAT(EstimateBucketFusion(in, t, p), IsInvalidArgument("algorithm 'chain' does not apply"));
  in.algorithm = Algorithm::kRing;
  EXPECT_THAT(EstimateBucketFusion(in, {1, 0, 1}, p), IsInvalidArgument("ranks_per_node=0"));
}

}  // namespace
}  // namespace models
}  // namespace kcoll
