#include "models/bandwidth/ideal_bandwidth.h"

#include <algorithm>
#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/test_util.h"

namespace kcoll {
namespace models {
namespace {

constexpr double kGB = 1e9;

// Reference example: B = 450 GB/s, I = 100 GB/s, P = 8, Q = 2 (N = 16): min(100 * 15 * 2 / (16 * 1), 450 * 15 / 14)
// = min(187.5, 482.14...) = 187.5 GB/s. (Checked: 3000 / 16 = 187.5 and 6750 / 14 = 482.142857.)
TEST(IdealBandwidthTest, ReferenceMultiNodeExample) {
  const IdealBandwidth ideal = Unwrap(ComputeIdealBandwidth({450 * kGB, 100 * kGB, 8, 2}));
  EXPECT_DOUBLE_EQ(ideal.busbw, 187.5 * kGB);
  EXPECT_DOUBLE_EQ(ideal.inter_term, 187.5 * kGB);
  EXPECT_NEAR(ideal.intra_term / kGB, 482.142857142857, 1e-9);
  EXPECT_TRUE(ideal.inter_limited);
}

// Reference example: a single node of GPUs at B = 450 GB/s has ideal 450 GB/s whatever the GPU count.
TEST(IdealBandwidthTest, SingleNodeIsB) {
  for (int p : {1, 2, 3, 8, 64, 1000}) {
    const IdealBandwidth ideal = Unwrap(ComputeIdealBandwidth({450 * kGB, 0, p, 1}));
    EXPECT_DOUBLE_EQ(ideal.busbw, 450 * kGB) << p;
    EXPECT_FALSE(ideal.inter_limited);
    EXPECT_TRUE(std::isinf(ideal.inter_term));
  }
}

TEST(IdealBandwidthTest, TendsToTheIntraTermAsInterBandwidthGrows) {
  const double b = 300 * kGB;
  const int p = 4, q = 3, n = p * q;
  const double limit = b * (n - 1) / (n - q);
  double previous = 0;
  for (double i = 1 * kGB; i < 1e30; i *= 10) {
    const double ideal = Unwrap(IdealBusBw({b, i, p, q}));
    EXPECT_GE(ideal, previous);
    EXPECT_LE(ideal, limit * (1 + 1e-15));
    previous = ideal;
  }
  EXPECT_DOUBLE_EQ(previous, limit);
}

// The closed form equals D / (T_ideal N) with T_ideal = max(D_inter / (I Q), D_intra / (B N)).
TEST(IdealBandwidthTest, ClosedFormMatchesTheDerivation) {
  for (int p : {2, 3, 8}) {
    for (int q : {2, 5, 16}) {
      for (double i : {10 * kGB, 100 * kGB, 1000 * kGB}) {
        const double b = 200 * kGB, d = 7.5e9;
        const double n = p * q;
        const double t_ideal = std::max(d * (q - 1) / (n - 1) / (i * q), d * (n - q) / (n - 1) / (b * n));
        const double expected = d / (t_ideal * n);
        EXPECT_NEAR(Unwrap(IdealBusBw({b, i, p, q})), expected, 1e-12 * expected) << p << " " << q << " " << i;
      }
    }
  }
}

TEST(IdealBandwidthTest, OneRankPerNodeIsBoundByTheInterNodeLinkAlone) {
  // N = Q: nothing moves within a node (D_Intra = 0), the ideal time is D (Q-1)/(N-1) / (I Q), the busbw I; B may be
  // unknown (no intra-node pair to measure it).
  for (double intra : {450 * kGB, 0.0}) {
    const IdealBandwidth ideal = Unwrap(ComputeIdealBandwidth({intra, 100 * kGB, 1, 4}));
    EXPECT_DOUBLE_EQ(ideal.busbw, 100 * kGB);
    EXPECT_TRUE(ideal.inter_limited);
    EXPECT_TRUE(std::isinf(ideal.intra_term));
  }
  const double d = 7.5e9, n = 4, q = 4, i = 100 * kGB;
  const double t_ideal = d * (q - 1) / (n - 1) / (i * q);
  EXPECT_NEAR(Unwrap(IdealBusBw({450 * kGB, i, 1, 4})), d / (t_ideal * n), 1e-3);
  EXPECT_THAT(ComputeIdealBandwidth({450 * kGB, 0, 1, 4}), IsInvalidArgument("inter_bw=0"));
}

TEST(IdealBandwidthTest, RefusesEdgeCasesNamingTheArgument) {
  EXPECT_THAT(ComputeIdealBandwidth({450 * kGB, 100 * kGB, 8, 0}), IsInvalidArgument("nodes=0"));
  EXPECT_THAT(ComputeIdealBandwidth({450 * kGB, 100 * kGB, 0, 2}), IsInvalidArgument("ranks_per_node=0"));
  EXPECT_THAT(ComputeIdealBandwidth({0, 100 * kGB, 8, 2}), IsInvalidArgument("intra_bw=0"));
  EXPECT_THAT(ComputeIdealBandwidth({-1, 100 * kGB, 8, 1}), IsInvalidArgument("intra_bw=-1"));
  EXPECT_THAT(ComputeIdealBandwidth({450 * kGB, 0, 8, 2}), IsInvalidArgument("inter_bw=0"));
  EXPECT_THAT(ComputeIdealBandwidth({450 * kGB, -4, 8, 2}), IsInvalidArgument("inter_bw=-4"));
  EXPECT_THAT(ComputeIdealBandwidth({std::nan(""), 1, 8, 2}), IsInvalidArgument("intra_bw=nan"));
  EXPECT_THAT(IdealBusBw({450 * kGB, 100 * kGB, 8, -1}), IsInvalidArgument("nodes=-1"));
}

TEST(IdealBandwidthTest, SingleNodeIgnoresInterBandwidth) {
  EXPECT_DOUBLE_EQ(Unwrap(IdealBusBw({450 * kGB, -1, 8, 1})), 450 * kGB);
}

TEST(EfficiencyTest, IsBusBwOverIdeal) {
  EXPECT_DOUBLE_EQ(Unwrap(Efficiency(150 * kGB, 187.5 * kGB)), 0.8);
  EXPECT_THAT(Efficiency(-1, 1), IsInvalidArgument("busbw=-1"));
  EXPECT_THAT(Efficiency(1, 0), IsInvalidArgument("ideal_busbw=0"));
}

}  // namespace
}  // namespace models
}  // namespace kcoll
