// The calibration's pure parts: sweeps, pair selection, option checks, turning fits into a profile, the report, and
// the launcher's command line. The measuring itself runs in calibrate_run_test.sh.
#include "bench/calibrate.h"

#include <algorithm>
#include <cstdlib>

#include "bench/calibrate_launch.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace kcoll {
namespace bench {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::Pair;

TEST(SweepSizes, GeometricThenTheMaximum) {
  EXPECT_THAT(SweepSizes(8, 64 << 20, 4),
              ElementsAre(8, 32, 128, 512, 2048, 8192, 32768, 131072, 524288, 2097152, 8388608, 33554432, 67108864));
  EXPECT_THAT(SweepSizes(4096, 4096, 4), ElementsAre(4096));
  EXPECT_THAT(SweepSizes(1, 10, 3), ElementsAre(1, 3, 9, 10));
  // Fractional factors still give whole, strictly growing sizes.
  EXPECT_THAT(SweepSizes(1, 4, 1.5), ElementsAre(1, 2, 3, 4));
}

TEST(PairsOfClass, FirstPairOrEveryPairOfEachClass) {
  const Topology two_by_two = MakeEmulatedTopology(0, 4, 2);
  EXPECT_THAT(PairsOfClass(two_by_two, LinkClass::kIntra, false), ElementsAre(Pair(0, 1)));
  EXPECT_THAT(PairsOfClass(two_by_two, LinkClass::kInter, false), ElementsAre(Pair(0, 2)));
  EXPECT_THAT(PairsOfClass(two_by_two, LinkClass::kIntra, true), ElementsAre(Pair(0, 1), Pair(2, 3)));
  EXPECT_THAT(PairsOfClass(two_by_two, LinkClass::kInter, true),
              ElementsAre(Pair(0, 2), Pair(0, 3), Pair(1, 2), Pair(1, 3)));
  const Topology one_node = MakeEmulatedTopology(0, 2, 2);
  EXPECT_THAT(PairsOfClass(one_node, LinkClass::kInter, true), IsEmpty());
  const Topology one_rank_per_node = MakeEmulatedTopology(0, 3, 1);
  EXPECT_THAT(PairsOfClass(one_rank_per_node, LinkClass::kIntra, true), IsEmpty());
  EXPECT_THAT(PairsOfClass(one_rank_per_node, LinkClass::kInter, false), ElementsAre(Pair(0, 1)));
}

TEST(ExchangePairs, DisjointPairsCoveringTheRanksOfEachClass) {
  const Topology two_by_two = MakeEmulatedTopology(0, 4, 2);
  EXPECT_THAT(ExchangePairs(two_by_two, LinkClass::kIntra), ElementsAre(Pair(0, 1), Pair(2, 3)));
  EXPECT_THAT(ExchangePairs(two_by_two, LinkClass::kInter), ElementsAre(Pair(0, 2), Pair(1, 3)));
  // An odd node leaves a rank out; one node has no inter-node pair.
  EXPECT_THAT(ExchangePairs(MakeEmulatedTopology(0, 3, 3), LinkClass::kIntra), ElementsAre(Pair(0, 1)));
  EXPECT_THAT(ExchangePairs(MakeEmulatedTopology(0, 2, 2), LinkClass::kInter), IsEmpty());
  // Three nodes of two: ranks 4 and 5 share a node and find no free partner on another.
  EXPECT_THAT(ExchangePairs(MakeEmulatedTopology(0, 6, 2), LinkClass::kInter), ElementsAre(Pair(0, 2), Pair(1, 3)));
}

TEST(CalibrationOptions, EachBadFieldIsNamed) {
  EXPECT_TRUE(ValidateCalibrationOptions({}).ok());
  CalibrationOptions o;
  o.min_bytes = 0;
  EXPECT_THAT(ValidateCalibrationOptions(o).message(), HasSubstr("min_bytes=0"));
  o = {};
  o.max_bytes = 4;
  EXPECT_THAT(ValidateCalibrationOptions(o).message(), HasSubstr("max_bytes=4"));
  o = {};
  o.step_factor = 1;
  EXPECT_THAT(ValidateCalibrationOptions(o).message(), HasSubstr("step_factor=1"));
  o = {};
  o.min_local_bytes = 2;
  EXPECT_THAT(ValidateCalibrationOptions(o).message(), HasSubstr("min_local_bytes=2"));
  o = {};
  o.min_reps = 0;
  EXPECT_THAT(ValidateCalibrationOptions(o).message(), HasSubstr("min_reps=0"));
  o = {};
  o.max_reps = 5;
  EXPECT_THAT(ValidateCalibrationOptions(o).message(), HasSubstr("max_reps=5"));
  o = {};
  o.percentile = 0;
  EXPECT_THAT(ValidateCalibrationOptions(o).message(), HasSubstr("percentile=0"));
  o.percentile = 101;
  EXPECT_THAT(ValidateCalibrationOptions(o).message(), HasSubstr("percentile=101"));
  o = {};
  o.passes = 0;
  EXPECT_THAT(ValidateCalibrationOptions(o).message(), HasSubstr("passes=0: must be in [1, 100]"));
  o = {};
  o.seconds_per_size = -1;
  EXPECT_THAT(ValidateCalibrationOptions(o).message(), HasSubstr("seconds_per_size=-1"));
}

// A series lying exactly on t = alpha + beta * bytes.
Series Line(double alpha, double beta, const std::vector<double>& sizes) {
  Series s;
  for (double b : sizes) {
    s.samples.push_back({b, alpha + beta * b});
    s.reps.push_back(10);
  }
  return s;
}

CalibrationResult MakeResult(int nranks, int ranks_per_node) {
  const Topology topology = MakeEmulatedTopology(0, nranks, ranks_per_node);
  CalibrationResult r;
  r.nranks = nranks;
  r.nodes = topology.nnodes;
  r.ranks_per_node = ranks_per_node;
  r.emulated = true;
  r.host = "testhost";
  r.date = "today";
  r.intra.link_class = LinkClass::kIntra;
  r.inter.link_class = LinkClass::kInter;
  r.intra.pairs = PairsOfClass(topology, LinkClass::kIntra, false);
  r.inter.pairs = PairsOfClass(topology, LinkClass::kInter, false);
  const std::vector<double> sizes = {8, 1024, 1 << 20};
  if (!r.intra.pairs.empty()) r.intra.series = Line(1e-6, 2e-10, sizes);
  if (!r.inter.pairs.empty()) r.inter.series = Line(3e-6, 5e-10, sizes);
  r.reduce = Line(1e-7, 4e-10, sizes);
  r.copy_kernel = Line(1e-7, 1e-10, sizes);
  r.memcpy_series = Line(0, 1.25e-10, sizes);
  return r;
}

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
  const models::LinkFit link = *models::FitLink(r.intra.series.samples, models::FitWeighting::kRelative);
  const models::LinkFit reduce = *models::FitLink(r.reduce.samples, models::FitWeighting::kRelative);
  EXPECT_EQ(profile->intra.alpha_s, link.link.alpha_s);
  EXPECT_EQ(profile->intra.beta_s_per_byte, link.link.beta_s_per_byte);
  EXPECT_EQ(profile->gamma_s_per_byte, reduce.link.beta_s_per_byte);
  // The absolute fit, kept for the report, differs.
  ASSERT_TRUE(r.intra.series.other_fit.ok());
  EXPECT_NE(r.intra.series.other_fit->link.beta_s_per_byte, link.link.beta_s_per_byte);
  // --fit=seconds saves the other ones.
  ASSERT_TRUE(FitAll(r, models::FitWeighting::kAbsolute).ok());
  profile = MakeProfile(r);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_EQ(profile->intra.beta_s_per_byte, models::FitLink(r.intra.series.samples)->link.beta_s_per_byte);
  EXPECT_EQ(profile->gamma_s_per_byte, models::FitLink(r.reduce.samples)->link.beta_s_per_byte);
  EXPECT_THAT(profile->description, HasSubstr("least squares on seconds"));
}

TEST(FitAll, AFailedFitNamesItsSeries) {
  CalibrationResult r = MakeResult(2, 2);
  r.reduce = Line(1e-6, 0, {8, 16});  // flat: no bandwidth
  absl::Status s = FitAll(r);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("reduction: "));
}

TEST(FormatReport, ShowsEveryFitAndTheEmulationNote) {
  CalibrationResult r = MakeResult(4, 2);
  ASSERT_TRUE(FitAll(r).ok());
  auto profile = MakeProfile(r);
  ASSERT_TRUE(profile.ok());
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

TEST(SpreadOf, TheLargestSlowestOverFastestAndItsSize) {
  const std::vector<double> sizes = {8, 1024, 1 << 20};
  EXPECT_EQ(SpreadOf({Line(1e-6, 1e-9, sizes)}).bytes, 0);  // one pass: nothing to compare
  Series slow_middle = Line(1e-6, 1e-9, sizes);
  slow_middle.samples[1].seconds *= 2.5;
  Series fast_end = Line(1e-6, 1e-9, sizes);
  fast_end.samples[2].seconds *= 0.8;
  const PassSpread spread = SpreadOf({Line(1e-6, 1e-9, sizes), slow_middle, fast_end});
  EXPECT_DOUBLE_EQ(spread.ratio, 2.5);
  EXPECT_EQ(spread.bytes, 1024);
}

TEST(FormatReport, WarnsWhenThePassesDisagree) {
  CalibrationResult r = MakeResult(2, 2);
  r.intra.exchange = Line(2e-6, 3e-10, {8, 1024, 1 << 20});
  r.intra.step_spread = {1.2, 8};
  ASSERT_TRUE(FitAll(r).ok());
  auto profile = MakeProfile(r);
  ASSERT_TRUE(profile.ok());
  std::string report = FormatReport(r, *profile);
  EXPECT_THAT(report,
              HasSubstr("the step's passes: slowest / fastest up to 1.20x (at 8 B); each size keeps its fastest"));
  EXPECT_THAT(report, Not(HasSubstr("WARNING: the machine changed speed")));
  r.intra.step_spread = {2.1, 262144};
  report = FormatReport(r, *profile);
  EXPECT_THAT(report, HasSubstr("WARNING: the machine changed speed while it was measured (2.1x at 262144 B)"));
}

TEST(FormatAutoChoices, OneLinePerCollectiveWithAlgorithms) {
  models::Profile p;
  p.intra = p.inter = {1e-6, 1e-10};
  const std::string text = FormatAutoChoices(MakeEmulatedTopology(0, 2, 2), p, {4096, 1 << 20});
  EXPECT_THAT(text, HasSubstr("auto's choice with this profile on 2 ranks (1 node(s))"));
  EXPECT_THAT(text, HasSubstr("4096 B"));
  EXPECT_THAT(text, HasSubstr("all_reduce"));  // every build registers at least one AllReduce algorithm
}

TEST(ResolveOutputPath, RelativePathsFollowWhereBazelRan) {
  EXPECT_EQ(ResolveOutputPath("p.json", "/home/me/src", "/runfiles"), "/home/me/src/p.json");
  EXPECT_EQ(ResolveOutputPath("p.json", "", "/work"), "/work/p.json");
  EXPECT_EQ(ResolveOutputPath("/tmp/p.json", "/home/me", "/work"), "/tmp/p.json");
  EXPECT_EQ(ResolveOutputPath("sub/p.json", "/home/me/", "/work"), "/home/me/sub/p.json");
}

TEST(CheckWritable, TheDirectoryMustExist) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  EXPECT_TRUE(CheckWritable(std::string(tmp != nullptr ? tmp : "/tmp") + "/p.json").ok());
  absl::Status s = CheckWritable("/nonexistent/dir/p.json");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("profile path '/nonexistent/dir/p.json' cannot be written: directory "
                                     "'/nonexistent/dir'"));
}

TEST(MakeLaunchCommand, BindsLikeTheBenchmarks) {
  LaunchCommand c = MakeLaunchCommand("/usr/bin/mpirun", "/bin/calibrate", 4, {"--out=/x.json"}, 2, "");
  EXPECT_THAT(c.argv, ElementsAre("/usr/bin/mpirun", "--oversubscribe", "--bind-to", "core:overload-allowed", "-np",
                                  "4", "/bin/calibrate", "--out=/x.json"));
  auto has = [](const std::vector<std::pair<std::string, std::string>>& env, const std::string& name) {
    return std::any_of(env.begin(), env.end(), [&](const auto& kv) { return kv.first == name; });
  };
  EXPECT_TRUE(has(c.default_env, "OMPI_ALLOW_RUN_AS_ROOT"));
  EXPECT_TRUE(has(c.default_env, "OMPI_MCA_mpi_yield_when_idle"));  // 4 ranks on 2 cores
  EXPECT_TRUE(c.force_env.empty());
  c = MakeLaunchCommand("/usr/bin/mpirun", "/bin/calibrate", 2, {}, 2, "/tmp/t");
  EXPECT_FALSE(has(c.default_env, "OMPI_MCA_mpi_yield_when_idle"));
  EXPECT_TRUE(has(c.force_env, "TMPDIR"));
  EXPECT_THAT(c.argv, ElementsAre("/usr/bin/mpirun", "--oversubscribe", "--bind-to", "none", "-np", "2",
                                  "/bin/calibrate"));  // inside a test: other jobs share the cores
  c = MakeLaunchCommand("/usr/bin/mpirun", "/bin/calibrate", 2, {}, 2, "");
  EXPECT_THAT(c.argv, ElementsAre("/usr/bin/mpirun", "--oversubscribe", "--bind-to", "core", "-np", "2",
                                  "/bin/calibrate"));  // as the benchmarks: one rank per core
}

}  // namespace
}  // namespace bench
}  // namespace kcoll
