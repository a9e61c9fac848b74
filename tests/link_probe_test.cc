// The link between nodes measured at creation (collectives/link_probe.h): the curve and line from the probe's times,
// the KCOLL_LINK_PROBE setting and when it probes, and communicators on emulated nodes that probe (KCOLL_LINK_PROBE=on)
// pricing their link between nodes with the same measured curve on every rank, measured once per pair of hosts.
#include "collectives/link_probe.h"

#include <mpi.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "choice/auto_choice.h"
#include "collectives/communicator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/profile_json.h"
#include "tests/mpi_test_env.h"
#include "tests/scoped_env.h"

namespace kcoll {
namespace testing {
namespace {

using ::testing::HasSubstr;

TEST(LinkFromProbe, TheCurveIsThePointsAndTheLineRunsThroughTheEnds) {
  const std::vector<models::CurvePoint> points = {{8, 20e-6}, {1000, 25e-6}, {8 + 100000, 120e-6}};
  absl::StatusOr<models::LinkParams> link = LinkFromProbe(points);
  ASSERT_TRUE(link.ok()) << link.status();
  ASSERT_EQ(link->curve.points.size(), 3u);
  EXPECT_EQ(link->curve.points[1].bytes, 1000);
  EXPECT_EQ(link->curve.points[1].seconds, 25e-6);
  EXPECT_NEAR(link->Seconds(1000), 25e-6, 1e-15);  // read back from the curve (log-log)
  EXPECT_DOUBLE_EQ(link->beta_s_per_byte, 100e-6 / 100000);
  EXPECT_DOUBLE_EQ(link->alpha_s + 8 * link->beta_s_per_byte, 20e-6);
  EXPECT_DOUBLE_EQ(link->alpha_s + (8 + 100000) * link->beta_s_per_byte, 120e-6);
}

TEST(LinkFromProbe, EqualTimesStillGiveAFiniteBandwidth) {
  absl::StatusOr<models::LinkParams> link = LinkFromProbe({{8, 50e-6}, {1008, 40e-6}});
  ASSERT_TRUE(link.ok()) << link.status();
  EXPECT_DOUBLE_EQ(link->beta_s_per_byte, 0.01 * 40e-6 / 1000);
  EXPECT_TRUE(std::isfinite(link->BytesPerSecond()));
  // A first time the line cannot reach keeps half of it as alpha.
  link = LinkFromProbe({{1000, 1e-6}, {2000, 1e-3}});
  ASSERT_TRUE(link.ok()) << link.status();
  EXPECT_DOUBLE_EQ(link->alpha_s, 0.5e-6);
}

TEST(LinkFromProbe, BadPointsNameTheValue) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_THAT(LinkFromProbe({{8, 1e-6}}).status().message(), HasSubstr("1 point(s), not two or more"));
  EXPECT_THAT(LinkFromProbe({{0, 1e-6}, {100, 2e-6}}).status().message(), HasSubstr("link probe curve[0] bytes=0"));
  EXPECT_THAT(LinkFromProbe({{100, 1e-6}, {100, 2e-6}}).status().message(),
              HasSubstr("link probe curve[1] bytes=100 must be finite, > 0 and above the previous point's"));
  EXPECT_THAT(LinkFromProbe({{8, 0}, {100, 2e-6}}).status().message(), HasSubstr("link probe curve[0] seconds=0"));
  EXPECT_THAT(LinkFromProbe({{8, 1e-6}, {100, -2}}).status().message(), HasSubstr("link probe curve[1] seconds=-2"));
  EXPECT_THAT(LinkFromProbe({{8, nan}, {100, 2e-6}}).status().message(), HasSubstr("[0] seconds=nan"));
  EXPECT_THAT(LinkFromProbe({{8, 1e-6}, {100, inf}}).status().message(), HasSubstr("[1] seconds=inf"));
  EXPECT_EQ(LinkFromProbe({{8, nan}, {100, 2e-6}}).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(LinkProbeMode, FromTheEnvironment) {
  {
    ScopedEnv unset("KCOLL_LINK_PROBE", nullptr);
    EXPECT_EQ(*LinkProbeModeFromEnv(), LinkProbeMode::kRealNodes);
  }
  for (auto [value, mode] : {std::pair{"auto", LinkProbeMode::kRealNodes}, std::pair{"on", LinkProbeMode::kAlways},
                             std::pair{"off", LinkProbeMode::kOff}}) {
    ScopedEnv env("KCOLL_LINK_PROBE", value);
    EXPECT_EQ(*LinkProbeModeFromEnv(), mode) << value;
  }
  ScopedEnv bad("KCOLL_LINK_PROBE", "maybe");
  absl::StatusOr<LinkProbeMode> mode = LinkProbeModeFromEnv();
  EXPECT_EQ(mode.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(mode.status().message(), HasSubstr("KCOLL_LINK_PROBE: 'maybe' is not auto, on or off"));
}

TEST(ShouldProbeLink, SeveralNodesRealOnesUnlessAlways) {
  const Topology one_node = MakeTopology(0, {0, 0}, false);
  const Topology real = MakeTopology(0, {0, 0, 1, 1}, false);
  const Topology emulated = MakeEmulatedTopology(0, 4, 2);
  EXPECT_FALSE(ShouldProbeLink(LinkProbeMode::kAlways, one_node));
  EXPECT_TRUE(ShouldProbeLink(LinkProbeMode::kRealNodes, real));
  EXPECT_FALSE(ShouldProbeLink(LinkProbeMode::kRealNodes, emulated));
  EXPECT_TRUE(ShouldProbeLink(LinkProbeMode::kAlways, emulated));
  EXPECT_FALSE(ShouldProbeLink(LinkProbeMode::kOff, real));
}

class LinkProbeCommunicatorTest : public ::testing::Test {
 protected:
  // No saved or named profile: the built-in one, which is what the probe amends.
  ScopedEnv no_saved_{"KCOLL_MACHINE_PROFILES", "off"};
  ScopedEnv no_named_{"KCOLL_PROFILE", nullptr};

  // Two emulated nodes of half the ranks each (one rank: one node).
  static CommunicatorOptions TwoNodes() {
    CommunicatorOptions options;
    options.ranks_per_node = WorldSize() > 1 ? WorldSize() / 2 : 1;
    return options;
  }
};

// The same bits on every rank.
bool SameOnEveryRank(double value) {
  double low = value, high = value;
  MPI_Allreduce(MPI_IN_PLACE, &low, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &high, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return low == value && high == value;
}

TEST_F(LinkProbeCommunicatorTest, EveryRankPricesWithRankZerosMeasuredCurve) {
  if (WorldSize() % 2 != 0) GTEST_SKIP() << "two emulated nodes need an even number of ranks";
  ScopedEnv on("KCOLL_LINK_PROBE", "on");
  auto comm = Communicator::Create(MPI_COMM_WORLD, TwoNodes());
  ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
  const models::Profile& profile = (*comm)->auto_choice().profile();
  EXPECT_THAT((*comm)->auto_choice().profile_source(), HasSubstr("its link between nodes probed: "));
  ASSERT_EQ(profile.inter.curve.points.size(), static_cast<size_t>(kLinkProbeSizeCount));
  for (int i = 0; i < kLinkProbeSizeCount; ++i) {
    EXPECT_EQ(profile.inter.curve.points[i].bytes, kLinkProbeSizes[i]);
    EXPECT_TRUE(SameOnEveryRank(profile.inter.curve.points[i].seconds)) << "point " << i;
  }
  EXPECT_GT(profile.inter.alpha_s, 0);
  EXPECT_LT(profile.inter.alpha_s, 1.0);  // a ping-pong on one machine, not a second
  EXPECT_GT(profile.inter.beta_s_per_byte, 0);
  EXPECT_TRUE(std::isfinite(profile.inter.beta_s_per_byte));
  EXPECT_TRUE(SameOnEveryRank(profile.inter.alpha_s));
  EXPECT_TRUE(SameOnEveryRank(profile.inter.beta_s_per_byte));
  // The links within a node stay the built-in profile's.
  EXPECT_EQ(profile.intra.alpha_s, BuiltInProfile((*comm)->transport()).intra.alpha_s);
}

TEST_F(LinkProbeCommunicatorTest, SetProfileMeasuresAgainAndLaterCommunicatorsReuseIt) {
  if (WorldSize() % 2 != 0) GTEST_SKIP() << "two emulated nodes need an even number of ranks";
  ScopedEnv on("KCOLL_LINK_PROBE", "on");
  auto first = Communicator::Create(MPI_COMM_WORLD, TwoNodes());
  ASSERT_TRUE(AllRanks(first.ok())) << first.status();
  const int64_t before = LinkProbesRun();
  ASSERT_TRUE(AllRanks((*first)->SetProfile("").ok()));
  EXPECT_EQ(LinkProbesRun(), before + 1);
  EXPECT_THAT((*first)->auto_choice().profile_source(), HasSubstr("its link between nodes probed: "));
  const models::MeasuredCurve measured = (*first)->auto_choice().profile().inter.curve;
  ASSERT_EQ(measured.points.size(), static_cast<size_t>(kLinkProbeSizeCount));

  // The same two hosts: rank 0's process has their times, and every rank takes them without a ping-pong.
  auto second = Communicator::Create(MPI_COMM_WORLD, TwoNodes());
  ASSERT_TRUE(AllRanks(second.ok())) << second.status();
  EXPECT_EQ(LinkProbesRun(), before + 1);
  const models::MeasuredCurve& reused = (*second)->auto_choice().profile().inter.curve;
  ASSERT_EQ(reused.points.size(), measured.points.size());
  for (size_t i = 0; i < reused.points.size(); ++i) {
    EXPECT_EQ(reused.points[i].seconds, measured.points[i].seconds) << "point " << i;
  }
}

TEST_F(LinkProbeCommunicatorTest, EmulatedNodesByDefaultAndOffKeepTheBuiltInCurve) {
  for (const char* value : {static_cast<const char*>(nullptr), "auto", "off"}) {
    ScopedEnv env("KCOLL_LINK_PROBE", value);
    auto comm = Communicator::Create(MPI_COMM_WORLD, TwoNodes());
    ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
    EXPECT_THAT((*comm)->auto_choice().profile_source(), ::testing::StartsWith("built-in"));
    EXPECT_THAT((*comm)->auto_choice().profile_source(), ::testing::Not(HasSubstr("probed")));
    const models::LinkParams& inter = (*comm)->auto_choice().profile().inter;
    const models::LinkParams built_in = BuiltInProfile((*comm)->transport()).inter;
    EXPECT_EQ(inter.alpha_s, built_in.alpha_s);
    EXPECT_EQ(inter.curve.points.size(), built_in.curve.points.size());
  }
}

TEST_F(LinkProbeCommunicatorTest, ABadSettingFailsCreateOnEveryRank) {
  ScopedEnv bad("KCOLL_LINK_PROBE", "yes");
  auto comm = Communicator::Create(MPI_COMM_WORLD, TwoNodes());
  EXPECT_TRUE(AllRanks(!comm.ok()));
  EXPECT_EQ(comm.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(comm.status().message(), HasSubstr("KCOLL_LINK_PROBE: 'yes' is not auto, on or off"));
}

TEST_F(LinkProbeCommunicatorTest, ANamedProfileIsTakenAsItIs) {
  models::Profile given;
  given.intra = {2e-6, 1e-10};
  given.inter = {3e-6, 2e-10};
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = absl::StrCat(dir != nullptr ? dir : "/tmp", "/link_probe_named_", WorldRank(), ".json");
  std::ofstream(path) << models::ProfileToJson(given);
  ScopedEnv on("KCOLL_LINK_PROBE", "on");
  ScopedEnv named("KCOLL_PROFILE", path);
  auto comm = Communicator::Create(MPI_COMM_WORLD, TwoNodes());
  ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
  EXPECT_EQ((*comm)->auto_choice().profile_source(), "KCOLL_PROFILE=" + path);
  EXPECT_EQ((*comm)->auto_choice().profile().inter.alpha_s, 3e-6);
  EXPECT_EQ((*comm)->auto_choice().profile().inter.beta_s_per_byte, 2e-10);
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
