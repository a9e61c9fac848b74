// The calibration report and auto's choices with a measured profile.
#include "calibration/report.h"

#include <vector>

#include "calibration/profile.h"
#include "calibration/test_results.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/matchers.h"

namespace kcoll {
namespace calibration {
namespace {

// `r`'s fits (FitAll) and the profile made of them, as the calibration has them when it writes its report.
absl::StatusOr<models::Profile> FittedProfile(CalibrationResult& r) {
  if (absl::Status fitted = FitAll(r); !fitted.ok()) return fitted;
  return MakeProfile(r);
}

TEST(FormatReport, ShowsEveryFitAndTheEmulationNote) {
  CalibrationResult r = MakeResult(4, 2);
  absl::StatusOr<models::Profile> profile = FittedProfile(r);
  ASSERT_TRUE(profile.ok()) << profile.status();
  const std::string report = FormatReport(r, *profile);
  EXPECT_THAT(report, HasSubstr("inter-node pairs talk through MPI's shared memory, exactly like intra-node pairs"));
  EXPECT_THAT(report, HasSubstr("intra-node link: ping-pong through kcoll's MPI transport, pair(s) 0-1"));
  EXPECT_THAT(report, HasSubstr("beta = 2e-10 s/B (5 GB/s), R^2 = 1.000000"));
  EXPECT_THAT(report, HasSubstr("fit on relative errors; saved: alpha = 3 us, beta = 5e-10 s/B (2 GB/s)"));
  EXPECT_THAT(report, HasSubstr("fit on seconds (large sizes dominate): alpha = "));
  // Measured through kcoll's shared memory within the emulated nodes and MPI between them, the report says so.
  r.transport = "shm+mpi";
  const std::string routed = FormatReport(r, *profile);
  EXPECT_THAT(routed, HasSubstr("intra-node pairs talk through kcoll's shared memory, inter-node pairs through MPI"));
  EXPECT_THAT(routed, HasSubstr("intra-node link: ping-pong through kcoll's shm+mpi transport, pair(s) 0-1"));
  EXPECT_THAT(report, HasSubstr("gamma = 4e-10 s/B (2.5 GB/s reduced per rank)"));
  EXPECT_THAT(report, HasSubstr("memcpy = 8 GB/s"));
  EXPECT_THAT(report, HasSubstr("one-way = median round trip / 2"));
  r.percentile = 10;
  EXPECT_THAT(FormatReport(r, *profile), HasSubstr("one-way = 10th-percentile round trip / 2"));
  EXPECT_THAT(report, Not(HasSubstr("rank_core_share")));  // cores unknown
  // More ranks than cores: the share of a core each rank measured with.
  r.cores = 2;
  r.host_ranks = 4;
  EXPECT_THAT(FormatReport(r, *MakeProfile(r)),
              HasSubstr("4 ranks on a host of 2 cores: each rank measured with 0.50 of a core (rank_core_share)"));
}

TEST(FormatReport, WarnsWhenThePassesDisagree) {
  CalibrationResult r = MakeResult(2, 2);
  r.intra.exchange = Line(2e-6, 3e-10, {8, 1024, 1 << 20});
  r.intra.step_spread = {1.2, 8};
  absl::StatusOr<models::Profile> profile = FittedProfile(r);
  ASSERT_TRUE(profile.ok()) << profile.status();
  std::string report = FormatReport(r, *profile);
  EXPECT_THAT(report,
              HasSubstr("the step's passes: slowest / fastest up to 1.20x (at 8 B); each size keeps its fastest"));
  EXPECT_THAT(report, Not(HasSubstr("WARNING: the machine changed speed")));
  r.intra.step_spread = {2.1, 262144};
  report = FormatReport(r, *profile);
  EXPECT_THAT(report, HasSubstr("WARNING: the machine changed speed while it was measured (2.1x at 262144 B)"));
}

TEST(FormatReport, SaysTheInterCurvePricesANodesLinkAcrossRealNodes) {
  CalibrationResult r = MakeResult(4, 2);
  r.inter.exchange = Line(3e-6, 4e-10, {8, 1024, 1 << 20});
  r.inter.exchange_pairs = {{0, 2}, {1, 3}};
  r.inter.streams_per_node = 2;
  r.emulated = false;
  absl::StatusOr<models::Profile> profile = FittedProfile(r);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_THAT(FormatReport(r, *profile),
              HasSubstr("pair(s) 0-2, 1-3 at once (a 2-rank ring AllReduce on twice the size): its exchange, both "
                        "ways (the curve the profile prices a node's link with, at 2 times the message"));
  // Emulated nodes: each rank copies its own messages.
  r.emulated = true;
  profile = FittedProfile(r);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_THAT(FormatReport(r, *profile), HasSubstr("(the curve the profile prices messages with)"));
}

TEST(FormatReport, ShowsTheOneStreamStepAgainstAllPairs) {
  CalibrationResult r = MakeResult(4, 2);
  r.emulated = false;
  r.inter.exchange = Line(3e-6, 4e-10, {8, 1024, 1 << 20});
  r.inter.exchange_pairs = {{0, 2}, {1, 3}};
  r.inter.streams_per_node = 2;
  absl::StatusOr<models::Profile> profile = FittedProfile(r);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_THAT(FormatReport(r, *profile), Not(HasSubstr("the same step on pair")));
  r.inter.one_stream_pairs = {{0, 2}};
  r.inter.one_stream = Line(1.5e-6, 4e-10, {8, 1024, 1 << 20});
  profile = FittedProfile(r);
  ASSERT_TRUE(profile.ok()) << profile.status();
  const std::string report = FormatReport(r, *profile);
  EXPECT_THAT(report, HasSubstr("the same step on pair 0-2 alone, the other ranks polling as a collective's waiting "
                                "ranks do: one stream through each node's link each way (the curve the profile "
                                "prices rounds of one stream per node with)\n         bytes    reps     exchange GB/s "
                                "each way  / all pairs\n"));
  // 8 bytes: 1.5 us alone against 3 us with both pairs.
  EXPECT_THAT(report, HasSubstr("0.50x"));
}

TEST(FormatAutoChoices, OneLinePerCollectiveWithAlgorithms) {
  models::Profile p;
  p.intra = p.inter = {1e-6, 1e-10};
  const std::string text = FormatAutoChoices(MakeEmulatedTopology(0, 2, 2), p, {4096, 1 << 20});
  EXPECT_THAT(text, HasSubstr("auto's choice with this profile on 2 ranks (1 node(s))"));
  EXPECT_THAT(text, HasSubstr("4096 B"));
  EXPECT_THAT(text, HasSubstr("all_reduce"));  // every build registers at least one AllReduce algorithm
}

}  // namespace
}  // namespace calibration
}  // namespace kcoll
