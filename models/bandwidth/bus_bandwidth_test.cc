#include "models/bandwidth/bus_bandwidth.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/test_util.h"

namespace kcoll {
namespace models {
namespace {

TEST(BusBwFactorTest, MatchesNcclTests) {
  const int64_t n = 16;
  EXPECT_DOUBLE_EQ(Unwrap(BusBwFactor(Collective::kAllReduce, n)), 2.0 * 15 / 16);
  EXPECT_DOUBLE_EQ(Unwrap(BusBwFactor(Collective::kReduceScatter, n)), 15.0 / 16);
  EXPECT_DOUBLE_EQ(Unwrap(BusBwFactor(Collective::kAllGather, n)), 15.0 / 16);
  EXPECT_DOUBLE_EQ(Unwrap(BusBwFactor(Collective::kAllToAll, n)), 15.0 / 16);
  EXPECT_DOUBLE_EQ(Unwrap(BusBwFactor(Collective::kGather, n)), 15.0 / 16);
  EXPECT_DOUBLE_EQ(Unwrap(BusBwFactor(Collective::kScatter, n)), 15.0 / 16);
  EXPECT_DOUBLE_EQ(Unwrap(BusBwFactor(Collective::kBroadcast, n)), 1.0);
  EXPECT_DOUBLE_EQ(Unwrap(BusBwFactor(Collective::kReduce, n)), 1.0);
  EXPECT_DOUBLE_EQ(Unwrap(BusBwFactor(Collective::kSendRecv, n)), 1.0);
  EXPECT_DOUBLE_EQ(Unwrap(BusBwFactor(Collective::kBarrier, n)), 0.0);
}

TEST(BusBwFactorTest, OneRankMovesNothing) {
  EXPECT_DOUBLE_EQ(Unwrap(BusBwFactor(Collective::kAllReduce, 1)), 0.0);
  EXPECT_DOUBLE_EQ(Unwrap(BusBwFactor(Collective::kAllGather, 1)), 0.0);
  EXPECT_DOUBLE_EQ(Unwrap(BusBwFactor(Collective::kBroadcast, 1)), 1.0);
}

TEST(BusBwFactorTest, AllReduceFactorRisesTowardTwo) {
  double previous = 0;
  for (int64_t n = 2; n <= (int64_t{1} << 20); n *= 2) {
    const double f = Unwrap(BusBwFactor(Collective::kAllReduce, n));
    EXPECT_GT(f, previous);
    EXPECT_LT(f, 2.0);
    EXPECT_NEAR(2.0 - f, 2.0 / n, 1e-12);  // the gap closes as 2/n
    previous = f;
  }
  EXPECT_NEAR(Unwrap(BusBwFactor(Collective::kAllReduce, 1 << 20)), 2.0, 1e-5);
}

TEST(BusBwTest, AlgBwIsBytesOverSeconds) {
  EXPECT_DOUBLE_EQ(Unwrap(AlgBw(1e9, 0.1)), 1e10);
  EXPECT_DOUBLE_EQ(Unwrap(AlgBw(0, 0.1)), 0);
}

// Reference example (ideal-bandwidth notes): AllReduce of 1 GB on 2 nodes x 8 GPUs in 0.1 s. The notes print
// 19.375 GB/s, but D = S * 2 (N - 1) = 1 GB * 30 = 30 GB and BusBW = D / (T N) = 30 / (0.1 * 16) = 18.75 GB/s
// (equivalently algbw 10 GB/s times 2 * 15 / 16 = 1.875). 19.375 would need D = 31 GB.
TEST(BusBwTest, ReferenceAllReduceExampleCorrected) {
  const double busbw = Unwrap(BusBw(Collective::kAllReduce, 1e9, 0.1, 16));
  EXPECT_DOUBLE_EQ(busbw / kBytesPerGB, 18.75);
  EXPECT_NE(busbw / kBytesPerGB, 19.375);
}

TEST(BusBwTest, BroadcastBusBwEqualsAlgBw) {
  EXPECT_DOUBLE_EQ(Unwrap(BusBw(Collective::kBroadcast, 4e9, 0.5, 64)), 8e9);
}

TEST(BusBwTest, BarrierHasNoBandwidth) { EXPECT_DOUBLE_EQ(Unwrap(BusBw(Collective::kBarrier, 0, 1e-5, 8)), 0); }

TEST(BusBwTest, RefusesBadArguments) {
  EXPECT_THAT(AlgBw(-1, 1), IsInvalidArgument("bytes=-1"));
  EXPECT_THAT(AlgBw(1, 0), IsInvalidArgument("seconds=0"));
  EXPECT_THAT(AlgBw(1, -2), IsInvalidArgument("seconds=-2"));
  EXPECT_THAT(BusBw(Collective::kAllReduce, 1, 1, 0), IsInvalidArgument("nranks=0"));
  EXPECT_THAT(BusBwFactor(Collective::kAllGather, -3), IsInvalidArgument("nranks=-3"));
  EXPECT_THAT(BusBw(Collective::kAllReduce, 1, 0, 4), IsInvalidArgument("seconds=0"));
  EXPECT_THAT(BusBwFactor(static_cast<Collective>(99), 4), IsInvalidArgument("collective=99"));
  EXPECT_THAT(CollectiveBytes(static_cast<Collective>(99), 1, 4, 4), IsInvalidArgument("collective=99"));
}

TEST(CollectiveBytesTest, FollowsNcclTestsSizeConvention) {
  const int64_t count = 1000, elem = 4, n = 8;
  EXPECT_DOUBLE_EQ(Unwrap(CollectiveBytes(Collective::kAllReduce, count, elem, n)), 4000);
  EXPECT_DOUBLE_EQ(Unwrap(CollectiveBytes(Collective::kBroadcast, count, elem, n)), 4000);
  EXPECT_DOUBLE_EQ(Unwrap(CollectiveBytes(Collective::kReduce, count, elem, n)), 4000);
  EXPECT_DOUBLE_EQ(Unwrap(CollectiveBytes(Collective::kSendRecv, count, elem, n)), 4000);
  // Per-rank counts: S is the whole buffer.
  EXPECT_DOUBLE_EQ(Unwrap(CollectiveBytes(Collective::kReduceScatter, count, elem, n)), 32000);
  EXPECT_DOUBLE_EQ(Unwrap(CollectiveBytes(Collective::kAllGather, count, elem, n)), 32000);
  EXPECT_DOUBLE_EQ(Unwrap(CollectiveBytes(Collective::kAllToAll, count, elem, n)), 32000);
  EXPECT_DOUBLE_EQ(Unwrap(CollectiveBytes(Collective::kGather, count, elem, n)), 32000);
  EXPECT_DOUBLE_EQ(Unwrap(CollectiveBytes(Collective::kScatter, count, elem, n)), 32000);
  EXPECT_DOUBLE_EQ(Unwrap(CollectiveBytes(Collective::kBarrier, count, elem, n)), 0);
}

TEST(CollectiveBytesTest, RefusesBadArguments) {
  EXPECT_THAT(CollectiveBytes(Collective::kAllReduce, -1, 4, 2), IsInvalidArgument("count=-1"));
  EXPECT_THAT(CollectiveBytes(Collective::kAllReduce, 1, 0, 2), IsInvalidArgument("elem_bytes=0"));
  EXPECT_THAT(CollectiveBytes(Collective::kAllReduce, 1, 4, 0), IsInvalidArgument("nranks=0"));
}

}  // namespace
}  // namespace models
}  // namespace kcoll
