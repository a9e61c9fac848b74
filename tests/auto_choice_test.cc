// `auto`: the registered algorithm the cost model predicts fastest. Checked three ways: hand-derived choices between
// two algorithms; the choice over whatever the registry holds against the models' own predictions restricted to it;
// and the handling of algorithms without a model, of profiles and of topologies.
#include "choice/auto_choice.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "choice/shipped_profiles.h"
#include "collectives/algorithms/registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/bandwidth/bus_bandwidth.h"
#include "models/cost_model.h"
#include "models/profile_json.h"
#include "tests/matchers.h"
#include "tests/scoped_env.h"

namespace kcoll {
namespace {

// alpha, beta (s/B), gamma (s/B).
ProfileChoice Costs(double alpha, double beta, double gamma = 0) {
  ProfileChoice p;
  p.profile.intra = {alpha, beta};
  p.profile.inter = {alpha, beta};
  p.profile.gamma_s_per_byte = gamma;
  p.source = "test";
  return p;
}

// alpha = 1 s per message: only the number of rounds counts. beta = 1 s per byte: only the bytes moved count.
ProfileChoice LatencyBound() { return Costs(1.0, 1e-15); }
ProfileChoice BandwidthBound() { return Costs(1e-15, 1.0); }

AutoChoice Make(const Topology& topology, ProfileChoice profile) {
  absl::StatusOr<AutoChoice> choice = AutoChoice::Create(topology, std::move(profile));
  EXPECT_TRUE(choice.ok()) << choice.status();
  return *std::move(choice);
}

constexpr size_t kSmall = 8;
constexpr size_t kLarge = size_t{64} << 20;

// Four ranks on one node. Ring AllReduce: 2(n-1) = 6 rounds moving 2(n-1)/n = 1.5 S per rank. Recursive doubling:
// log2(4) = 2 rounds of the whole S, 2 S per rank. So latency-bound calls want recursive doubling and
// bandwidth-bound ones want the ring, whichever order the registry lists them in.
TEST(AutoChoiceTwoAlgorithms, LatencyPicksFewerRoundsBandwidthPicksFewerBytes) {
  const Topology four = MakeEmulatedTopology(0, 4, 4);
  for (const std::vector<Algorithm>& registered :
       {std::vector<Algorithm>{Algorithm::kRing, Algorithm::kRecursiveDoubling},
        std::vector<Algorithm>{Algorithm::kRecursiveDoubling, Algorithm::kRing}}) {
    auto latency = Make(four, LatencyBound()).ChooseAmong(Collective::kAllReduce, kSmall, registered);
    ASSERT_TRUE(latency.ok()) << latency.status();
    EXPECT_EQ(*latency, Algorithm::kRecursiveDoubling);
    auto bandwidth = Make(four, BandwidthBound()).ChooseAmong(Collective::kAllReduce, kLarge, registered);
    ASSERT_TRUE(bandwidth.ok()) << bandwidth.status();
    EXPECT_EQ(*bandwidth, Algorithm::kRing);
  }
}

// Sixteen ranks, latency-bound AllToAllV: bruck's 2 log2(16) = 8 rounds beat pairwise's 15, on host ranks. On GPU
// ranks bruck's alltoallv cannot run (it reads received sizes on the host), so auto leaves it out there; bruck's
// AllToAll, which reads nothing on the host, stays a candidate.
TEST(AutoChoiceHostRanks, BruckAllToAllVOnlyOnHostRanks) {
  const Topology sixteen = MakeEmulatedTopology(0, 16, 16);
  const std::vector<Algorithm> both = {Algorithm::kPairwise, Algorithm::kBruck};
  absl::StatusOr<AutoChoice> host = AutoChoice::Create(sixteen, LatencyBound(), /*host_ranks=*/true);
  absl::StatusOr<AutoChoice> gpu = AutoChoice::Create(sixteen, LatencyBound(), /*host_ranks=*/false);
  ASSERT_TRUE(host.ok() && gpu.ok()) << host.status() << gpu.status();
  auto on_host = host->ChooseAmong(Collective::kAllToAllV, kSmall, both);
  ASSERT_TRUE(on_host.ok()) << on_host.status();
  EXPECT_EQ(*on_host, Algorithm::kBruck);
  auto on_gpu = gpu->ChooseAmong(Collective::kAllToAllV, kSmall, both);
  ASSERT_TRUE(on_gpu.ok()) << on_gpu.status();
  EXPECT_EQ(*on_gpu, Algorithm::kPairwise);
  auto uniform = gpu->ChooseAmong(Collective::kAllToAll, kSmall, both);
  ASSERT_TRUE(uniform.ok()) << uniform.status();
  EXPECT_EQ(*uniform, Algorithm::kBruck);
}

// The size converts to nccl-tests' S: AllGather's `bytes` is one rank's part, S is the whole output.
TEST(AutoChoiceCandidates, PricesTheWholeCollective) {
  const Topology four = MakeEmulatedTopology(0, 4, 2);
  const AutoChoice choice = Make(four, Costs(2e-6, 1e-9, 1e-10));
  auto candidates = choice.Candidates(Collective::kAllGather, 1000, {Algorithm::kRing});
  ASSERT_TRUE(candidates.ok()) << candidates.status();
  ASSERT_EQ(candidates->size(), 1u);
  auto expected = models::PredictSeconds(Collective::kAllGather, Algorithm::kRing, 4000, ModelTopology(four),
                                         choice.profile(), ModelCostOptions(four));
  ASSERT_TRUE(expected.ok());
  EXPECT_DOUBLE_EQ((*candidates)[0].seconds, *expected);
}

// Linear does not implement AllReduce in the models: registered or not, `auto` never picks it, and with nothing
// else to compare the choice is left to the fallback.
TEST(AutoChoiceUnmodeled, AlgorithmsWithoutAModelAreLeftOut) {
  ASSERT_FALSE(models::Applies(Collective::kAllReduce, Algorithm::kLinear));
  const AutoChoice choice = Make(MakeEmulatedTopology(0, 4, 4), LatencyBound());
  auto chosen = choice.ChooseAmong(Collective::kAllReduce, kSmall, {Algorithm::kLinear, Algorithm::kRing});
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(*chosen, Algorithm::kRing);
  auto candidates = choice.Candidates(Collective::kAllReduce, kSmall, {Algorithm::kLinear, Algorithm::kRing});
  ASSERT_TRUE(candidates.ok());
  ASSERT_EQ(candidates->size(), 1u);
  EXPECT_EQ((*candidates)[0].algorithm, Algorithm::kRing);
  auto none = choice.ChooseAmong(Collective::kAllReduce, kSmall, {Algorithm::kLinear});
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

// Whatever the registry holds, each of its algorithms that runs on any buffers must be one the models can price
// (`direct` runs only on registered buffers, and is taken whenever they are: it is not chosen by price), except
// AllReduce's `linear` and `ordered_halving_doubling`, which numerics=deterministic takes by its own rule
// (collectives/communicator_numerics.cc).
TEST(AutoChoiceRegistry, EveryRegisteredAlgorithmHasAModel) {
  for (Collective c : AllCollectives()) {
    for (Algorithm a : TransferAlgorithmsFor(c)) {
      if (c == Collective::kAllReduce && (a == Algorithm::kLinear || a == Algorithm::kOrderedHalvingDoubling)) continue;
      EXPECT_TRUE(models::Applies(c, a)) << AlgorithmName(a) << " is registered for " << CollectiveName(c)
                                         << " but the models have no cost for it";
    }
  }
}

// The least predicted time over the registered algorithms that have a model, computed here from the cost model
// directly; nullopt when there is none.
std::optional<double> BestRegisteredSeconds(Collective c, size_t bytes, const Topology& topology,
                                            const models::Profile& profile) {
  std::optional<double> best;
  const double s = *models::CollectiveBytes(c, static_cast<int64_t>(bytes), 1, topology.nranks);
  for (Algorithm a : AlgorithmsFor(c)) {
    if (!models::Applies(c, a)) continue;
    auto t = models::PredictSeconds(c, a, s, ModelTopology(topology), profile, ModelCostOptions(topology));
    EXPECT_TRUE(t.ok()) << t.status();
    if (t.ok() && (!best.has_value() || *t < *best)) best = *t;
  }
  return best;
}

// With the real registry: the choice is a registered algorithm, and no registered algorithm is predicted faster.
TEST(AutoChoiceRegistry, ChoosesTheFastestRegisteredAlgorithm) {
  const std::vector<Topology> topologies = {MakeEmulatedTopology(0, 2, 2), MakeEmulatedTopology(0, 4, 4),
                                            MakeEmulatedTopology(0, 4, 2), MakeEmulatedTopology(0, 6, 3),
                                            MakeEmulatedTopology(0, 5, 5), MakeEmulatedTopology(0, 8, 2)};
  for (const Topology& topology : topologies) {
    for (const ProfileChoice& profile : {LatencyBound(), BandwidthBound(), Costs(1e-6, 2e-10, 5e-10)}) {
      const AutoChoice choice = Make(topology, profile);
      for (Collective c : AllCollectives()) {
        const std::vector<Algorithm> registered = AlgorithmsFor(c);
        if (registered.empty()) continue;
        for (size_t bytes : {kSmall, size_t{4096}, size_t{1} << 20, kLarge}) {
          SCOPED_TRACE(::testing::Message() << CollectiveName(c) << " " << bytes << " B on " << topology.Describe()
                                            << ", alpha " << profile.profile.intra.alpha_s);
          auto chosen = choice.Choose(c, bytes);
          ASSERT_TRUE(chosen.ok()) << chosen.status();
          EXPECT_NE(std::find(registered.begin(), registered.end(), *chosen), registered.end());
          const std::optional<double> best = BestRegisteredSeconds(c, bytes, topology, profile.profile);
          if (!best.has_value()) continue;  // nothing modeled: the fallback chose
          const double s = *models::CollectiveBytes(c, static_cast<int64_t>(bytes), 1, topology.nranks);
          auto t = models::PredictSeconds(c, *chosen, s, ModelTopology(topology), profile.profile,
                                          ModelCostOptions(topology));
          ASSERT_TRUE(t.ok()) << t.status();
          EXPECT_LE(*t, *best * (1 + models::kTieTolerance));
        }
      }
    }
  }
}

// A latency-optimal algorithm among those registered wins small calls when alpha dominates, and a bandwidth-optimal
// one large calls when beta dominates, judged by rounds and bytes counted here for the AllReduce algorithms whose
// counts are simple (4 ranks on one node).
TEST(AutoChoiceRegistry, ExtremeProfilesPickLatencyOrBandwidthOptimalAllReduce) {
  const std::vector<Algorithm> registered = AlgorithmsFor(Collective::kAllReduce);
  auto has = [&](Algorithm a) { return std::find(registered.begin(), registered.end(), a) != registered.end(); };
  const Topology four = MakeEmulatedTopology(0, 4, 4);
  auto small = Make(four, LatencyBound()).Choose(Collective::kAllReduce, kSmall);
  ASSERT_TRUE(small.ok());
  auto large = Make(four, BandwidthBound()).Choose(Collective::kAllReduce, kLarge);
  ASSERT_TRUE(large.ok());
  // Recursive doubling's 2 rounds are the fewest any AllReduce of 4 ranks can take (log2 4); ring and
  // halving_doubling take 6 and 4. Only a tie on 2 rounds could pick another.
  if (has(Algorithm::kRecursiveDoubling)) {
    const models::Profile p = LatencyBound().profile;
    auto rd = models::PredictSeconds(Collective::kAllReduce, Algorithm::kRecursiveDoubling, kSmall, ModelTopology(four),
                                     p, ModelCostOptions(four));
    auto chosen =
        models::PredictSeconds(Collective::kAllReduce, *small, kSmall, ModelTopology(four), p, ModelCostOptions(four));
    ASSERT_TRUE(rd.ok() && chosen.ok());
    EXPECT_NEAR(*rd, 2.0, 1e-6);
    EXPECT_LE(*chosen, *rd * (1 + models::kTieTolerance));
  }
  // A bandwidth-optimal AllReduce moves 2(n-1)/n S = 1.5 S per rank; the ring does.
  if (has(Algorithm::kRing)) {
    const models::Profile p = BandwidthBound().profile;
    auto chosen =
        models::PredictSeconds(Collective::kAllReduce, *large, kLarge, ModelTopology(four), p, ModelCostOptions(four));
    ASSERT_TRUE(chosen.ok());
    EXPECT_LE(*chosen, 1.5 * kLarge * (1 + 1e-6));
    EXPECT_NE(*large, Algorithm::kRecursiveDoubling);
    EXPECT_NE(*large, Algorithm::kTree);
  }
}

TEST(ModelTopology, NodesAndSharedMemoryLinks) {
  const models::Topology two_by_two = ModelTopology(MakeEmulatedTopology(0, 4, 2));
  EXPECT_EQ(two_by_two.nodes, 2);
  EXPECT_EQ(two_by_two.ranks_per_node, 2);
  EXPECT_EQ(two_by_two.nics_per_node, 2);  // emulated: each rank's inter-node copies are its own
  EXPECT_EQ(ModelTopology(MakeTopology(0, {0, 0, 1, 1}, false)).nics_per_node, 1);  // real nodes: one NIC
  EXPECT_EQ(two_by_two.intra_links_per_rank, 1);
  // Nodes of 2 and 1 ranks: priced as one rank per node.
  const models::Topology uneven = ModelTopology(MakeTopology(0, {0, 0, 2}, false));
  EXPECT_EQ(uneven.nodes, 3);
  EXPECT_EQ(uneven.ranks_per_node, 1);
}

std::string WriteFile(const std::string& name, const std::string& text) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
  std::ofstream(path) << text;
  return path;
}

class ChooseProfileTest : public ::testing::Test {
 protected:
  void SetUp() override { unsetenv("KCOLL_PROFILE"); }
  void TearDown() override { unsetenv("KCOLL_PROFILE"); }
};

TEST_F(ChooseProfileTest, BuiltInWhenNothingIsGiven) {
  auto p = ChooseProfile("");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->source, "built-in");
  EXPECT_TRUE(models::ValidateProfile(p->profile).ok());
  EXPECT_EQ(p->profile.intra.alpha_s, BuiltInProfile().intra.alpha_s);
}

// The built-in profiles are files shipped beside the library (here: in the test's runfiles), not compiled in.
TEST_F(ChooseProfileTest, BuiltInProfilesAreShippedFiles) {
  for (const char* name : {kShippedMpiProfile, kShippedShmProfile}) {
    absl::StatusOr<std::string> path = FindShippedProfile(name);
    ASSERT_TRUE(path.ok()) << path.status();
    EXPECT_THAT(*path, ::testing::EndsWith(absl::StrCat("models/profiles/", name)));
    EXPECT_TRUE(models::LoadProfile(*path).ok()) << *path;
  }
}

TEST_F(ChooseProfileTest, ProfileDirectoryReplacesTheShippedFiles) {
  // A directory holding another profile under the shipped name: `auto` prices with it.
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(tmp != nullptr ? tmp : "/tmp") + "/profiles_here";
  mkdir(dir.c_str(), 0755);
  const models::Profile latency = LatencyBound().profile;
  std::ofstream(dir + "/" + kShippedMpiProfile) << models::ProfileToJson(latency);
  {
    testing::ScopedEnv env("KCOLL_PROFILE_DIR", dir);
    const ProfileChoice choice = BuiltInProfileChoice();
    EXPECT_EQ(choice.source, "built-in");
    EXPECT_EQ(choice.profile.intra.alpha_s, latency.intra.alpha_s);
  }
  // Without the file there, the generic profile stands in, and the source says which directory lacked what.
  {
    testing::ScopedEnv env("KCOLL_PROFILE_DIR", dir + "/nowhere");
    const ProfileChoice choice = BuiltInProfileChoice();
    EXPECT_THAT(choice.source, ::testing::StartsWith("generic (no this_machine_2ranks.json in "));
    EXPECT_THAT(choice.source, ::testing::HasSubstr("/nowhere (KCOLL_PROFILE_DIR)"));
    EXPECT_TRUE(models::ValidateProfile(choice.profile).ok());
    auto chosen = ChooseProfile("");
    ASSERT_TRUE(chosen.ok());
    EXPECT_EQ(chosen->source, choice.source);
  }
  // A file that is not a profile: the generic one, with the field that is wrong.
  std::ofstream(dir + "/" + kShippedShmProfile) << "{\"intra\": 3}";
  {
    testing::ScopedEnv env("KCOLL_PROFILE_DIR", dir);
    const ProfileChoice choice = BuiltInProfileChoice(TransportKind::kShm);
    EXPECT_THAT(choice.source, ::testing::StartsWith("generic ("));
    EXPECT_THAT(choice.source, ::testing::HasSubstr(kShippedShmProfile));
  }
}

TEST_F(ChooseProfileTest, PathThenEnvironment) {
  models::Profile a = LatencyBound().profile, b = BandwidthBound().profile;
  const std::string path_a = WriteFile("a.json", models::ProfileToJson(a));
  const std::string path_b = WriteFile("b.json", models::ProfileToJson(b));
  setenv("KCOLL_PROFILE", path_b.c_str(), 1);
  auto from_env = ChooseProfile("");
  ASSERT_TRUE(from_env.ok()) << from_env.status();
  EXPECT_EQ(from_env->source, "KCOLL_PROFILE=" + path_b);
  EXPECT_EQ(from_env->profile.intra.beta_s_per_byte, 1.0);
  auto from_path = ChooseProfile(path_a);
  ASSERT_TRUE(from_path.ok()) << from_path.status();
  EXPECT_EQ(from_path->source, "profile_path=" + path_a);
  EXPECT_EQ(from_path->profile.intra.alpha_s, 1.0);
}

TEST_F(ChooseProfileTest, BadFilesNameTheSettingThePathAndTheField) {
  const std::string missing_field =
      WriteFile("missing.json", R"({"schema_version": 1, "intra": {"alpha_s": 1e-6}, "inter": {"alpha_s": 1e-6,
      "beta_s_per_byte": 1e-10}, "gamma_s_per_byte": 0, "memcpy_bytes_per_s": 0})");
  auto p = ChooseProfile(missing_field);
  EXPECT_THAT(p, IsInvalidArgument("profile_path: " + missing_field + ": "));
  EXPECT_THAT(p.status().message(), HasSubstr("'intra.beta_s_per_byte' is missing"));

  const std::string negative =
      WriteFile("negative.json", R"({"schema_version": 1, "intra": {"alpha_s": -1, "beta_s_per_byte": 1e-10},
      "inter": {"alpha_s": 1e-6, "beta_s_per_byte": 1e-10}, "gamma_s_per_byte": 0, "memcpy_bytes_per_s": 0})");
  p = ChooseProfile(negative);
  EXPECT_THAT(p, IsInvalidArgument(negative));
  EXPECT_THAT(p.status().message(), HasSubstr("intra"));
  EXPECT_THAT(p.status().message(), HasSubstr("alpha"));

  p = ChooseProfile("/nonexistent/profile.json");
  EXPECT_THAT(p, IsInvalidArgument("profile_path: profile path '/nonexistent/profile.json' cannot be read"));

  const std::string not_json = WriteFile("garbage.json", "{not json");
  setenv("KCOLL_PROFILE", not_json.c_str(), 1);
  p = ChooseProfile("");
  EXPECT_THAT(p, IsInvalidArgument("KCOLL_PROFILE: " + not_json + ": profile: not valid JSON"));
}

TEST(AutoChoiceCreate, InvalidProfileNamesItsSource) {
  ProfileChoice bad = Costs(1e-6, 1e-10);
  bad.profile.gamma_s_per_byte = -1;
  bad.source = "profile_path=/x.json";
  auto choice = AutoChoice::Create(MakeEmulatedTopology(0, 2, 2), bad);
  EXPECT_THAT(choice, IsInvalidArgument("profile (profile_path=/x.json): "));
  EXPECT_THAT(choice.status().message(), HasSubstr("gamma"));
}

// The built-in profile is the measured example profile, exactly: the shipped file itself.
TEST(BuiltInProfile, SharedMemoryHasItsOwnMeasuredLinkAndMpisBetweenNodes) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  const std::string path = std::string(srcdir != nullptr ? srcdir : ".") + "/" +
                           (workspace != nullptr ? workspace : "kcoll") +
                           "/models/profiles/this_machine_2ranks_shm.json";
  auto measured = models::LoadProfile(path);
  ASSERT_TRUE(measured.ok()) << measured.status();
  const models::Profile shm = BuiltInProfile(TransportKind::kShm);
  const models::Profile mpi = BuiltInProfile(TransportKind::kMpi);
  EXPECT_EQ(shm.description, measured->description);  // not the fallback
  EXPECT_EQ(shm.intra.alpha_s, measured->intra.alpha_s);
  EXPECT_EQ(shm.intra.curve.points.size(), measured->intra.curve.points.size());
  EXPECT_FALSE(shm.intra.curve.empty());
  EXPECT_EQ(shm.inter.alpha_s, mpi.inter.alpha_s);  // inter-node transfers go over MPI
  EXPECT_NE(shm.intra.alpha_s, mpi.intra.alpha_s);
  auto chosen = ChooseProfile("", TransportKind::kShm);
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  EXPECT_EQ(chosen->source, "built-in (shm)");
}

TEST(BuiltInProfile, IsTheMeasuredExample) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  const std::string path = std::string(srcdir != nullptr ? srcdir : ".") + "/" +
                           (workspace != nullptr ? workspace : "kcoll") + "/models/profiles/this_machine_2ranks.json";
  auto measured = models::LoadProfile(path);
  ASSERT_TRUE(measured.ok()) << measured.status();
  const models::Profile built_in = BuiltInProfile();
  EXPECT_EQ(built_in.description, measured->description);  // not the fallback
  EXPECT_EQ(built_in.intra.alpha_s, measured->intra.alpha_s);
  EXPECT_EQ(built_in.intra.beta_s_per_byte, measured->intra.beta_s_per_byte);
  EXPECT_EQ(built_in.gamma_s_per_byte, measured->gamma_s_per_byte);
  EXPECT_EQ(built_in.transfers_use_cores, measured->transfers_use_cores);
  ASSERT_EQ(built_in.intra.curve.points.size(), measured->intra.curve.points.size());
  EXPECT_FALSE(built_in.intra.curve.empty());
  EXPECT_FALSE(built_in.gamma_curve.empty());
  for (size_t i = 0; i < built_in.intra.curve.points.size(); ++i) {
    EXPECT_EQ(built_in.intra.curve.points[i].seconds, measured->intra.curve.points[i].seconds) << i;
  }
}

}  // namespace
}  // namespace kcoll
