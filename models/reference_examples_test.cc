// The worked examples of the reference notes kcoll's models follow, reproduced after checking their arithmetic.
// Where a note is wrong, the test states the correct value and says why.
#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/analysis/bucket_fusion.h"
#include "models/analysis/crossover.h"
#include "models/bandwidth/bus_bandwidth.h"
#include "models/bandwidth/ideal_bandwidth.h"
#include "models/cost_model.h"
#include "models/test_util.h"

namespace kcoll {
namespace models {
namespace {

// ---- Ideal bandwidth notes. ----

// "1 GB AllReduce on 2 nodes x 8 GPUs in 0.1 s gives BusBW = 19.375 GB/s": wrong. D = S * 2 (N-1) = 30 GB, so
// D / (T N) = 30 / 1.6 = 18.75 GB/s, which is also nccl-tests' algbw (10 GB/s) times 2 * 15 / 16.
TEST(ReferenceIdealBandwidthTest, BusBwExampleIs18_75NotTheNotes19_375) {
  EXPECT_DOUBLE_EQ(Unwrap(BusBw(Collective::kAllReduce, 1e9, 0.1, 16)), 18.75e9);
}

// B = 450 GB/s, I = 100 GB/s, P = 8, Q = 2: min(187.5, 482.1) = 187.5 GB/s (correct in the notes).
TEST(ReferenceIdealBandwidthTest, MultiNodeExample) {
  const IdealBandwidth ideal = Unwrap(ComputeIdealBandwidth({450e9, 100e9, 8, 2}));
  EXPECT_DOUBLE_EQ(ideal.busbw, 187.5e9);
  EXPECT_NEAR(ideal.intra_term, 482.1e9, 0.05e9);
}

TEST(ReferenceIdealBandwidthTest, SingleNodeExample) { EXPECT_DOUBLE_EQ(Unwrap(IdealBusBw({450e9, 0, 8, 1})), 450e9); }

// ---- Ring and tree notes. ----

// The notes' schedules move each phase's data in one piece: one chunk as large as any buffer here (kcoll's tree and
// hierarchical AllReduce otherwise pipeline 512 KiB chunks and slices, which the notes do not).
CostModel Model(Algorithm a, const Topology& t, const Profile& p, Collective c = Collective::kAllReduce) {
  CostOptions unpipelined;
  unpipelined.chunk_bytes = 1e15;
  return Unwrap(CostModel::Create(c, a, t, p, unpipelined));
}

// P = 64, alpha = 1 us, beta = 1 / (100 GB/s): ring 126 alpha + 2 (63/64) S beta, tree 12 alpha + 12 S beta, equal at
// S = 114 alpha / ((12 - 1.96875) beta) = 1.136448 MB; the notes' "1.14 MB from solving the full equations" is right
// (their approximate formula is the one ~12% off, and is not used).
TEST(ReferenceRingTreeTest, CrossoverAt64Ranks) {
  const Topology t{1, 64, 1};
  const Profile p = Uniform(1e-6, 100e9);
  const double exact = 114e-6 / ((12 - 2 * 63.0 / 64) * 1e-11);
  EXPECT_NEAR(exact, 1.136448e6, 1);
  const std::vector<Crossover> found =
      Unwrap(FindCrossovers(Model(Algorithm::kRing, t, p), Model(Algorithm::kTree, t, p)));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NEAR(found[0].bytes, exact, 1e-9 * exact);
  EXPECT_EQ(found[0].below, Algorithm::kTree);
  EXPECT_EQ(found[0].above, Algorithm::kRing);
  EXPECT_TRUE(found[0].continuous);
  EXPECT_NEAR(found[0].below_seconds, found[0].above_seconds, 1e-9 * found[0].above_seconds);
}

// P = 256, alpha = 5 us, beta = 1 / (200 GB/s): 2.55e-3 + 9.96e-12 S = 8e-5 + 8e-11 S at S = 35.27 MB (the notes'
// 35.3 MB is right).
TEST(ReferenceRingTreeTest, CrossoverAt256Ranks) {
  const Topology t{1, 256, 1};
  const Profile p = Uniform(5e-6, 200e9);
  const double exact = (510 - 16) * 5e-6 / ((16 - 2 * 255.0 / 256) / 200e9);
  EXPECT_NEAR(exact / 1e6, 35.27, 0.005);
  const std::vector<Crossover> found =
      Unwrap(FindCrossovers(Model(Algorithm::kRing, t, p), Model(Algorithm::kTree, t, p)));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NEAR(found[0].bytes, exact, 1e-9 * exact);
}

// 8 nodes x 8 GPUs, NVLink 600 GB/s and 1 us, network 100 GB/s and 5 us, 1 GB AllReduce. Flat ring: 126 rounds
// paced by the network, 126 (5 us + 1e9/64 / 100e9) = 20.3175 ms (notes: 20.3 ms). 2D ring: intra RS 7 us +
// (7/8) 1e9 / 600e9 = 1.4653 ms, inter AllReduce 14 * 5 us + 14 (1e9/64) / 100e9 = 2.2575 ms, intra AG 1.4653 ms:
// 5.188 ms (notes: 5.2 ms), speedup 3.92 (notes: 3.9). All correct - but the inter-node phase runs 8 rings at
// once, one per GPU, each at 100 GB/s: the notes assume a 100 GB/s NIC per GPU (nics_per_node = 8). With the
// 8 GPUs sharing one 100 GB/s NIC the 2D ring takes 20.50 ms, no faster than the flat ring.
TEST(ReferenceRingTreeTest, HierarchicalExample) {
  const Profile p = TwoLevel(1e-6, 600e9, 5e-6, 100e9);
  const Topology rails{8, 8, 8};
  const double flat = Model(Algorithm::kRing, rails, p).Seconds(1e9);
  EXPECT_NEAR(flat, 126 * (5e-6 + 1e9 / 64 / 100e9), 1e-15);
  EXPECT_NEAR(flat * 1e3, 20.3175, 1e-9);
  const double phase1 = 7e-6 + 7.0 / 8 * 1e9 / 600e9;
  const double phase2 = 14 * 5e-6 + 14 * (1e9 / 64) / 100e9;
  EXPECT_NEAR(phase1 * 1e3, 1.4653, 1e-4);
  EXPECT_NEAR(phase2 * 1e3, 2.2575, 1e-9);
  const double hier = Model(Algorithm::kHierarchical, rails, p).Seconds(1e9);
  EXPECT_NEAR(hier, 2 * phase1 + phase2, 1e-15);
  EXPECT_NEAR(hier * 1e3, 5.188, 5e-4);
  EXPECT_NEAR(flat / hier, 3.916, 5e-4);

  const Topology shared{8, 8, 1};
  const double hier_shared = Model(Algorithm::kHierarchical, shared, p).Seconds(1e9);
  EXPECT_NEAR(hier_shared, 2 * phase1 + 14 * (5e-6 + 8 * (1e9 / 64) / 100e9), 1e-15);
  EXPECT_GT(hier_shared, Model(Algorithm::kRing, shared, p).Seconds(1e9));
}

// "Bidirectional ring: T = (P-1) alpha + (P-1)/P n / beta": the latency term is wrong for kcoll's bidirectional ring,
// which runs two complete rings at once, each on half the data. Each ring still needs 2 (P-1) rounds, so
// T = 2 (P-1) alpha + (P-1)/P S beta: the bandwidth term halves (both directions of each link work), the number
// of rounds does not. (The notes also say odd P "requires one extra step", which neither form has.)
TEST(ReferenceRingTreeTest, BidirectionalRingKeepsTheRoundCount) {
  const Topology t{1, 8, 1};
  const double alpha = 1e-6, s = 1e8;
  const Profile p = Uniform(alpha, 100e9);
  const double t_bidir = Model(Algorithm::kBidirectionalRing, t, p).Seconds(s);
  EXPECT_NEAR(t_bidir, 14 * alpha + 7.0 / 8 * s / 100e9, 1e-15);
  EXPECT_GT(t_bidir, 7 * alpha + 7.0 / 8 * s / 100e9);  // the notes' formula undercounts
}

// Table of the notes, P a power of two: ring 2(P-1) alpha + 2 (P-1)/P S beta, tree 2 log2 P (alpha + S beta).
TEST(ReferenceRingTreeTest, RingAndTreeTable) {
  const Profile p = Uniform(3e-6, 25e9);
  for (int n : {2, 4, 16, 128}) {
    const double s = 1e7, beta = 1 / 25e9, l = std::log2(n);
    EXPECT_NEAR(Model(Algorithm::kRing, {1, n, 1}, p).Seconds(s), 2 * (n - 1) * 3e-6 + 2.0 * (n - 1) / n * s * beta,
                1e-15);
    EXPECT_NEAR(Model(Algorithm::kTree, {1, n, 1}, p).Seconds(s), 2 * l * (3e-6 + s * beta), 1e-15);
  }
}

// 1000 tensors of 1 MB, alpha = 10 us, beta = 1 / (100 GB/s), P = 8, ring. Per tensor 14 alpha + (7/4) 1e6 beta =
// 157.5 us, 157.5 ms in all; 40 buckets of 25 MB: 14 alpha + (7/4) 25e6 beta = 577.5 us each, 23.1 ms; 6.8x.
// (Correct in the notes, with MB = 1e6 bytes.)
TEST(ReferenceBucketFusionTest, Example) {
  BucketFusionInputs in;
  in.tensors = 1000;
  in.tensor_bytes = 1e6;
  in.bucket_bytes = 25e6;
  in.algorithm = Algorithm::kRing;
  const BucketFusionEstimate e = Unwrap(EstimateBucketFusion(in, {1, 8, 1}, Uniform(10e-6, 100e9)));
  EXPECT_NEAR(e.unbucketed_seconds * 1e3, 157.5, 1e-9);
  EXPECT_EQ(e.bucketed_calls, 40);
  EXPECT_NEAR(e.bucketed_seconds * 1e3, 23.1, 1e-9);
  EXPECT_NEAR(e.speedup, 6.818, 1e-3);
}

}  // namespace
}  // namespace models
}  // namespace kcoll
