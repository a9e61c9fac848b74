// Turning fitted measurements into a profile.
#include "calibration/profile.h"

#include <vector>

#include "calibration/test_results.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/matchers.h"

namespace kcoll {
namespace calibration {
namespace {

TEST(MakeProfile, FitsBecomeTheProfile) {
  CalibrationResult r = MakeResult(4, 2);
  ASSERT_TRUE(FitAll(r).ok());
  auto profile = MakeProfile(r);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_NEAR(profile->intra.alpha_s, 1e-6, 1e-12);
  EXPECT_NEAR(profile->intra.beta_s_per_byte, 2e-10, 1e-16);
  EXPECT_NEAR(profile->inter.alpha_s, 3e-6, 1e-12);
  EXPECT_NEAR(profile->inter.beta_s_per_byte, 5e-10, 1e-16);
  EXPECT_NEAR(profile->gamma_s_per_byte, 4e-10, 1e-16);
  EXPECT_NEAR(profile->memcpy_bytes_per_s, 8e9, 1e3);
  EXPECT_THAT(profile->description, HasSubstr("4 ranks, 2 node(s) x 2 ranks (emulated nodes)"));
  EXPECT_THAT(profile->description, HasSubstr("inter: ping-pong 0-2 (emulated nodes: shared memory"));
  EXPECT_NEAR(r.intra.series.fit.r_squared, 1.0, 1e-9);
  // No exchange measured: the links are the alpha-beta lines; the reduction sweep is the gamma curve.
  EXPECT_TRUE(profile->intra.curve.empty());
  ASSERT_EQ(profile->gamma_curve.points.size(), 3u);
  EXPECT_TRUE(profile->gamma_curve.proportional);
  EXPECT_EQ(profile->gamma_curve.points[2].seconds, r.reduce.samples[2].seconds);
  EXPECT_EQ(profile->gamma_curve.buffer_per_message, 1);  // measured alone
  EXPECT_TRUE(profile->transfers_use_cores);              // emulated nodes: shared memory
  EXPECT_EQ(profile->rank_core_share, 1);                 // cores unknown
  // Four ranks on a host of two cores measured with half a core each; on four cores, with a whole one.
  r.cores = 2;
  r.host_ranks = 4;
  EXPECT_EQ(MakeProfile(r)->rank_core_share, 0.5);
  r.cores = 4;
  EXPECT_EQ(MakeProfile(r)->rank_core_share, 1);
}

TEST(MakeProfile, ExchangesBecomeTheLinkCurves) {
  CalibrationResult r = MakeResult(4, 2);
  r.intra.exchange = Line(2e-6, 3e-10, {8, 1024, 1 << 20});
  ASSERT_TRUE(FitAll(r).ok());
  auto profile = MakeProfile(r);
  ASSERT_TRUE(profile.ok()) << profile.status();
  ASSERT_EQ(profile->intra.curve.points.size(), 3u);
  EXPECT_EQ(profile->intra.curve.points[1].bytes, 1024);
  EXPECT_EQ(profile->intra.curve.points[1].seconds, r.intra.exchange.samples[1].seconds);
  EXPECT_FALSE(profile->intra.curve.proportional);
  EXPECT_EQ(profile->intra.curve.buffer_per_message, kStepBufferPerMessage);
  // The inter class measured no exchange: it takes the intra one's.
  EXPECT_EQ(profile->inter.curve.points.size(), 3u);
  EXPECT_EQ(profile->inter.curve.buffer_per_message, kStepBufferPerMessage);
  // The summary stays the ping-pong fit.
  EXPECT_NEAR(profile->intra.alpha_s, 1e-6, 1e-12);
  // Real nodes: a NIC moves the data.
  r.emulated = false;
  EXPECT_FALSE(MakeProfile(r)->transfers_use_cores);
}

TEST(MakeProfile, AcrossRealNodesTheInterCurvePricesTheNodesLinkLoad) {
  // Two hosts of two ranks: the step ran pairs 0-2 and 1-3 at once, two messages each way through each host's link.
  CalibrationResult r = MakeResult(4, 2);
  r.emulated = false;
  r.inter.exchange = Line(3e-6, 4e-10, {8, 1024, 1 << 20});
  r.inter.streams_per_node = 2;
  ASSERT_TRUE(FitAll(r).ok());
  auto profile = MakeProfile(r);
  ASSERT_TRUE(profile.ok()) << profile.status();
  ASSERT_EQ(profile->inter.curve.points.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(profile->inter.curve.points[i].bytes, 2 * r.inter.exchange.samples[i].bytes);
    EXPECT_EQ(profile->inter.curve.points[i].seconds, r.inter.exchange.samples[i].seconds);
  }
  // A rank's buffer in the step was twice its message, the point's load two messages.
  EXPECT_EQ(profile->inter.curve.buffer_per_message, kStepBufferPerMessage / 2);
  // A round that puts 2 MiB through a node's link costs what the step's two 1 MiB messages took.
  EXPECT_EQ(profile->inter.Seconds(2 << 20), r.inter.exchange.samples[2].seconds);
  // Emulated nodes copy through shared memory, each rank its own messages: a point is one message.
  r.emulated = true;
  profile = MakeProfile(r);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_EQ(profile->inter.curve.points[2].bytes, r.inter.exchange.samples[2].bytes);
  EXPECT_EQ(profile->inter.curve.buffer_per_message, kStepBufferPerMessage);
}

TEST(MakeProfile, TheOneStreamStepIsTheInterLinksOneStreamCurve) {
  CalibrationResult r = MakeResult(4, 2);
  r.emulated = false;
  r.inter.exchange = Line(3e-6, 4e-10, {8, 1024, 1 << 20});
  r.inter.streams_per_node = 2;
  r.inter.one_stream = Line(1.5e-6, 5e-10, {8, 1024, 1 << 20});
  ASSERT_TRUE(FitAll(r).ok());
  auto profile = MakeProfile(r);
  ASSERT_TRUE(profile.ok()) << profile.status();
  ASSERT_EQ(profile->inter.one_stream_curve.points.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {  // one message per point, in the step's buffer of twice it
    EXPECT_EQ(profile->inter.one_stream_curve.points[i].bytes, r.inter.one_stream.samples[i].bytes);
    EXPECT_EQ(profile->inter.one_stream_curve.points[i].seconds, r.inter.one_stream.samples[i].seconds);
  }
  EXPECT_EQ(profile->inter.one_stream_curve.buffer_per_message, kStepBufferPerMessage);
  EXPECT_TRUE(profile->intra.one_stream_curve.empty());
  // Where the step's curve already stands for one message (emulated nodes), there is nothing to add.
  r.emulated = true;
  profile = MakeProfile(r);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_TRUE(profile->inter.one_stream_curve.empty());
}

TEST(MakeProfile, TheStepsReductionIsTheGammaCurve) {
  CalibrationResult r = MakeResult(4, 2);
  r.intra.exchange = Line(2e-6, 3e-10, {8, 1024, 1 << 20});
  r.intra.step_reduce = Line(1e-7, 9e-10, {8, 1024, 1 << 20});
  r.inter.exchange = Line(3e-6, 4e-10, {8, 1024, 1 << 20});
  r.inter.step_reduce = Line(5e-7, 7e-10, {8, 1024, 1 << 20});
  ASSERT_TRUE(FitAll(r).ok());
  auto profile = MakeProfile(r);
  ASSERT_TRUE(profile.ok()) << profile.status();
  // The intra-node class's step, not the isolated sweep (whose fit stays the summary gamma).
  ASSERT_EQ(profile->gamma_curve.points.size(), 3u);
  EXPECT_EQ(profile->gamma_curve.points[0].bytes, 8);
  EXPECT_EQ(profile->gamma_curve.points[2].seconds, r.intra.step_reduce.samples[2].seconds);
  EXPECT_TRUE(profile->gamma_curve.proportional);
  EXPECT_EQ(profile->gamma_curve.buffer_per_message, kStepBufferPerMessage);
  EXPECT_NEAR(profile->gamma_s_per_byte, 4e-10, 1e-16);
  EXPECT_EQ(profile->inter.curve.points[1].seconds, r.inter.exchange.samples[1].seconds);
  // Only the inter-node class ran steps: its reduction.
  r.intra.exchange = Series();
  r.intra.step_reduce = Series();
  profile = MakeProfile(r);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_EQ(profile->gamma_curve.points[2].seconds, r.inter.step_reduce.samples[2].seconds);
}

TEST(MakeProfile, AMissingClassTakesTheOther) {
  CalibrationResult one_node = MakeResult(2, 2);
  ASSERT_TRUE(FitAll(one_node).ok());
  auto profile = MakeProfile(one_node);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_EQ(profile->inter.alpha_s, profile->intra.alpha_s);
  EXPECT_EQ(profile->inter.beta_s_per_byte, profile->intra.beta_s_per_byte);
  EXPECT_THAT(profile->description, HasSubstr("inter: not measured (one node): the intra-node fit"));

  CalibrationResult one_per_node = MakeResult(2, 1);
  ASSERT_TRUE(FitAll(one_per_node).ok());
  profile = MakeProfile(one_per_node);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_NEAR(profile->intra.alpha_s, 3e-6, 1e-12);
  EXPECT_THAT(profile->description, HasSubstr("intra: not measured (one rank per node)"));

  CalibrationResult none = MakeResult(2, 2);
  none.intra.pairs.clear();
  EXPECT_THAT(MakeProfile(none).status().message(), HasSubstr("neither intra-node nor inter-node"));
}

// Two regimes (fast small sizes, a slower slope for large ones): the profile takes the relative-error fits.
TEST(FitAll, TheProfileTakesTheRelativeFits) {
  CalibrationResult r = MakeResult(2, 2);
  const std::vector<double> sizes = {8, 512, 32768, 1 << 21, 1 << 26};
  r.intra.series = Line(2e-7, 1e-10, sizes);
  r.intra.series.samples[3].seconds *= 8;
  r.intra.series.samples[4].seconds *= 8;
  r.reduce = Line(1e-7, 1.5e-10, sizes);
  r.reduce.samples[4].seconds *= 6;
  ASSERT_TRUE(FitAll(r).ok());
  auto profile = MakeProfile(r);
  ASSERT_TRUE(profile.ok()) << profile.status();
  const LinkFit link = *FitLink(r.intra.series.samples, FitWeighting::kRelative);
  const LinkFit reduce = *FitLink(r.reduce.samples, FitWeighting::kRelative);
  EXPECT_EQ(profile->intra.alpha_s, link.link.alpha_s);
  EXPECT_EQ(profile->intra.beta_s_per_byte, link.link.beta_s_per_byte);
  EXPECT_EQ(profile->gamma_s_per_byte, reduce.link.beta_s_per_byte);
  // The absolute fit, kept for the report, differs.
  ASSERT_TRUE(r.intra.series.other_fit.ok());
  EXPECT_NE(r.intra.series.other_fit->link.beta_s_per_byte, link.link.beta_s_per_byte);
  // --fit=seconds saves the other ones.
  ASSERT_TRUE(FitAll(r, FitWeighting::kAbsolute).ok());
  profile = MakeProfile(r);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_EQ(profile->intra.beta_s_per_byte, FitLink(r.intra.series.samples)->link.beta_s_per_byte);
  EXPECT_EQ(profile->gamma_s_per_byte, FitLink(r.reduce.samples)->link.beta_s_per_byte);
  EXPECT_THAT(profile->description, HasSubstr("least squares on seconds"));
}

TEST(FitAll, AFailedFitNamesItsSeries) {
  CalibrationResult r = MakeResult(2, 2);
  r.reduce = Line(1e-6, 0, {8, 16});  // flat: no bandwidth
  absl::Status s = FitAll(r);
  EXPECT_THAT(s, IsInvalidArgument("reduction: "));
}

}  // namespace
}  // namespace calibration
}  // namespace kcoll
