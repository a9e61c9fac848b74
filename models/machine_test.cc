#include "models/machine.h"

#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/test_util.h"

namespace kcoll {
namespace models {
namespace {

TEST(LinkParamsTest, FromBandwidthInvertsTheBandwidth) {
  absl::StatusOr<LinkParams> link = LinkParams::FromBandwidth(2e-6, 100e9);
  ASSERT_TRUE(link.ok()) << link.status();
  EXPECT_DOUBLE_EQ(link->alpha_s, 2e-6);
  EXPECT_DOUBLE_EQ(link->beta_s_per_byte, 1e-11);
  EXPECT_DOUBLE_EQ(link->BytesPerSecond(), 100e9);
  EXPECT_DOUBLE_EQ(link->Seconds(1e9), 2e-6 + 1e-2);
}

TEST(LinkParamsTest, FromBandwidthRefusesBadValues) {
  EXPECT_THAT(LinkParams::FromBandwidth(-1, 1e9), IsInvalidArgument("latency_s=-1"));
  EXPECT_THAT(LinkParams::FromBandwidth(1e-6, 0), IsInvalidArgument("bytes_per_s=0"));
  EXPECT_THAT(LinkParams::FromBandwidth(1e-6, -5), IsInvalidArgument("bytes_per_s=-5"));
  EXPECT_THAT(LinkParams::FromBandwidth(1e-6, std::numeric_limits<double>::infinity()),
              IsInvalidArgument("bytes_per_s=inf"));
  EXPECT_THAT(LinkParams::FromBandwidth(std::nan(""), 1e9), IsInvalidArgument("latency_s=nan"));
}

TEST(LinkParamsTest, PeakIsTheFastestMeasuredSize) {
  LinkParams link{1e-6, 1.0 / 10e9};
  EXPECT_DOUBLE_EQ(link.PeakBytesPerSecond(), 10e9);  // no curve: the line
  link.curve = MeasuredCurve{{{8, 2e-7}, {1 << 20, (1 << 20) / 13e9}, {1 << 26, (1 << 26) / 4.5e9}}, false};
  EXPECT_DOUBLE_EQ(link.PeakBytesPerSecond(), 13e9);
  link.beta_s_per_byte = 1.0 / 20e9;  // a line faster than every measured size
  EXPECT_DOUBLE_EQ(link.PeakBytesPerSecond(), 20e9);
}

TEST(LinkParamsTest, OneStreamCurvePricesOneStreamWhenMeasured) {
  LinkParams link{1e-6, 1.0 / 10e9};
  link.curve = MeasuredCurve{{{8, 4e-5}, {1 << 20, 4e-2}}, false};
  EXPECT_DOUBLE_EQ(link.SecondsOfStreams(8, 1), 4e-5);  // none measured: the curve for any load
  link.one_stream_curve = MeasuredCurve{{{8, 3e-5}, {1 << 20, 2.5e-2}}, false};
  EXPECT_DOUBLE_EQ(link.SecondsOfStreams(8, 1), 3e-5);
  EXPECT_DOUBLE_EQ(link.SecondsOfStreams(1 << 20, 1), 2.5e-2);
  EXPECT_DOUBLE_EQ(link.SecondsOfStreams(8, 2), 4e-5);  // two streams: the curve
  EXPECT_DOUBLE_EQ(link.SecondsOfStreams(8, 0), 4e-5);  // not counted: the curve
  // Its sizes count for the peak rate too.
  link.one_stream_curve.points[1].seconds = (1 << 20) / 50e9;
  EXPECT_DOUBLE_EQ(link.PeakBytesPerSecond(), 50e9);
  link.one_stream_curve.points[1].bytes = 4;
  EXPECT_THAT(ValidateLinkParams(link, "inter"), IsInvalidArgument("inter.one_stream_curve[1] bytes=4"));
}

TEST(LinkParamsTest, ZeroBetaIsAnInfinitelyFastLink) { EXPECT_TRUE(std::isinf(LinkParams{1e-6, 0}.BytesPerSecond())); }

TEST(TopologyTest, CountsAndPlacesRanksNodeMajor) {
  const Topology t{3, 4, 2};
  EXPECT_EQ(t.ranks(), 12);
  EXPECT_EQ(t.NodeOf(0), 0);
  EXPECT_EQ(t.NodeOf(3), 0);
  EXPECT_EQ(t.NodeOf(4), 1);
  EXPECT_EQ(t.NodeOf(11), 2);
  EXPECT_TRUE(ValidateTopology(t).ok());
}

TEST(TopologyTest, ValidationNamesTheFieldAndValue) {
  EXPECT_THAT(ValidateTopology({0, 8, 1}), IsInvalidArgument("nodes=0"));
  EXPECT_THAT(ValidateTopology({2, -1, 1}), IsInvalidArgument("ranks_per_node=-1"));
  EXPECT_THAT(ValidateTopology({2, 8, 0}), IsInvalidArgument("nics_per_node=0"));
  EXPECT_THAT(ValidateTopology({2, 8, 1, -1}), IsInvalidArgument("intra_links_per_rank=-1"));
  EXPECT_THAT(ValidateTopology({1 << 16, 1 << 16, 1}), IsInvalidArgument("exceeds the limit"));
}

TEST(TopologyTest, ToString) {
  EXPECT_EQ(TopologyToString({8, 8, 1}), "8 nodes x 8 ranks (64 ranks, 1 NIC per node)");
  EXPECT_EQ(TopologyToString({1, 1, 2}), "1 node x 1 rank (1 rank, 2 NICs per node)");
  EXPECT_EQ(TopologyToString({2, 4, 1, 1}), "2 nodes x 4 ranks (8 ranks, 1 NIC per node, 1 intra-node link per rank)");
}

TEST(ProfileTest, ValidationNamesTheField) {
  Profile p;
  EXPECT_TRUE(ValidateProfile(p).ok());
  p.intra.alpha_s = -1;
  EXPECT_THAT(ValidateProfile(p), IsInvalidArgument("intra.alpha_s=-1"));
  p = Profile{};
  p.inter.beta_s_per_byte = std::nan("");
  EXPECT_THAT(ValidateProfile(p), IsInvalidArgument("inter.beta_s_per_byte=nan"));
  p = Profile{};
  p.gamma_s_per_byte = -2;
  EXPECT_THAT(ValidateProfile(p), IsInvalidArgument("gamma_s_per_byte=-2"));
  p = Profile{};
  p.memcpy_bytes_per_s = -3;
  EXPECT_THAT(ValidateProfile(p), IsInvalidArgument("memcpy_bytes_per_s=-3"));
  EXPECT_THAT(ValidateLinkParams({1, -1}, "mylink"), IsInvalidArgument("mylink.beta_s_per_byte=-1"));
}

}  // namespace
}  // namespace models
}  // namespace kcoll
