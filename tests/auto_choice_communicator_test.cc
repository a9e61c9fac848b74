// The Communicator's `auto`: the profile it is built from (option, $KCOLL_PROFILE, built-in, errors at Create on
// every rank), the overrides that still win over it, and calls that run what it chose.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "choice/auto_choice.h"
#include "collectives/algorithms/registry.h"
#include "collectives/communicator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/bandwidth/bus_bandwidth.h"
#include "models/cost_model.h"
#include "models/profile_json.h"
#include "tests/matchers.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace testing {
namespace {

// A file of this rank's own (ranks of one job share TEST_TMPDIR).
std::string RankFile(const std::string& name, const std::string& text) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = absl::StrCat(dir != nullptr ? dir : "/tmp", "/rank", WorldRank(), "_", name);
  std::ofstream(path) << text;
  return path;
}

std::string ProfileFile(const std::string& name, double alpha, double beta) {
  models::Profile p;
  p.intra = {alpha, beta};
  p.inter = {alpha, beta};
  return RankFile(name, models::ProfileToJson(p));
}

// The least predicted time over the registered, modeled algorithms, from the cost model directly.
double BestSeconds(const Communicator& comm, Collective c, size_t bytes, const models::Profile& profile) {
  const double s = *models::CollectiveBytes(c, static_cast<int64_t>(bytes), 1, comm.size());
  double best = -1;
  for (Algorithm a : AlgorithmsFor(c)) {
    if (!models::Applies(c, a)) continue;
    const double t =
        *models::PredictSeconds(c, a, s, ModelTopology(comm.topology()), profile, ModelCostOptions(comm.topology()));
    if (best < 0 || t < best) best = t;
  }
  return best;
}

double Seconds(const Communicator& comm, Collective c, Algorithm a, size_t bytes, const models::Profile& profile) {
  const double s = *models::CollectiveBytes(c, static_cast<int64_t>(bytes), 1, comm.size());
  return *models::PredictSeconds(c, a, s, ModelTopology(comm.topology()), profile, ModelCostOptions(comm.topology()));
}

class AutoChoiceCommunicatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    unsetenv("KCOLL_PROFILE");
    unsetenv("KCOLL_ALGO");
  }
  void TearDown() override { SetUp(); }
};

TEST_F(AutoChoiceCommunicatorTest, ChoosesByTheGivenProfile) {
  for (const auto& [alpha, beta, bytes] :
       std::vector<std::tuple<double, double, size_t>>{{1.0, 1e-15, 8}, {1e-15, 1.0, size_t{64} << 20}}) {
    CommunicatorOptions options;
    options.profile_path = ProfileFile("extreme.json", alpha, beta);
    auto comm = Communicator::Create(MPI_COMM_WORLD, options);
    ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
    EXPECT_EQ((*comm)->auto_choice().profile_source(), "profile_path=" + options.profile_path);
    const models::Profile& profile = (*comm)->auto_choice().profile();
    EXPECT_EQ(profile.intra.alpha_s, alpha);
    auto chosen = (*comm)->ResolveAlgorithm(Collective::kAllReduce, bytes, Algorithm::kAuto);
    ASSERT_TRUE(chosen.ok()) << chosen.status();
    const std::vector<Algorithm> registered = AlgorithmsFor(Collective::kAllReduce);
    EXPECT_NE(std::find(registered.begin(), registered.end(), *chosen), registered.end());
    if (models::Applies(Collective::kAllReduce, *chosen)) {
      EXPECT_LE(Seconds(**comm, Collective::kAllReduce, *chosen, bytes, profile),
                BestSeconds(**comm, Collective::kAllReduce, bytes, profile) * (1 + 1e-9));
    }
  }
}

TEST_F(AutoChoiceCommunicatorTest, EnvironmentProfileAndBuiltIn) {
  auto comm = Communicator::Create(MPI_COMM_WORLD);
  ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
  // The default transport on one node is shared memory: the built-in profile measured through it.
  EXPECT_EQ((*comm)->auto_choice().profile_source(), "built-in (shm)");
  CommunicatorOptions over_mpi;
  over_mpi.transport = TransportKind::kMpi;
  auto mpi = Communicator::Create(MPI_COMM_WORLD, over_mpi);
  ASSERT_TRUE(AllRanks(mpi.ok())) << mpi.status();
  EXPECT_EQ((*mpi)->auto_choice().profile_source(), "built-in");
  const std::string path = ProfileFile("env.json", 3e-6, 1e-9);
  setenv("KCOLL_PROFILE", path.c_str(), 1);
  comm = Communicator::Create(MPI_COMM_WORLD);
  ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
  EXPECT_EQ((*comm)->auto_choice().profile_source(), "KCOLL_PROFILE=" + path);
  EXPECT_EQ((*comm)->auto_choice().profile().intra.alpha_s, 3e-6);
}

TEST_F(AutoChoiceCommunicatorTest, OverridesStillWin) {
  CommunicatorOptions options;
  options.profile_path = ProfileFile("latency.json", 1.0, 1e-15);
  auto comm = Communicator::Create(MPI_COMM_WORLD, options);
  ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
  auto chosen = (*comm)->ResolveAlgorithm(Collective::kAllReduce, 8, Algorithm::kAuto);
  ASSERT_TRUE(chosen.ok());
  // Any registered algorithm other than the chosen one, asked for by name or through KCOLL_ALGO, wins.
  for (Algorithm other : AlgorithmsFor(Collective::kAllReduce)) {
    if (other == *chosen) continue;
    EXPECT_EQ(*(*comm)->ResolveAlgorithm(Collective::kAllReduce, 8, other), other);
    setenv("KCOLL_ALGO", std::string(AlgorithmName(other)).c_str(), 1);
    auto overridden = Communicator::Create(MPI_COMM_WORLD, options);  // KCOLL_ALGO is read at creation
    unsetenv("KCOLL_ALGO");
    ASSERT_TRUE(AllRanks(overridden.ok())) << overridden.status();
    EXPECT_EQ(*(*overridden)->ResolveAlgorithm(Collective::kAllReduce, 8, Algorithm::kAuto), other);
  }
}

TEST_F(AutoChoiceCommunicatorTest, AutoCallsRunWhatWasChosen) {
  for (const char* name : {"latency.json", "bandwidth.json"}) {
    CommunicatorOptions options;
    options.profile_path =
        std::string(name) == "latency.json" ? ProfileFile(name, 1.0, 1e-15) : ProfileFile(name, 1e-15, 1.0);
    auto comm = Communicator::Create(MPI_COMM_WORLD, options);
    ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
    for (size_t count : {size_t{1}, size_t{1000}, size_t{300000}}) {
      std::vector<int32_t> send(count), recv(count, -1);
      for (size_t i = 0; i < count; ++i) send[i] = static_cast<int32_t>(i % 1000) * (WorldRank() + 1);
      ASSERT_TRUE(AllRanks((*comm)->AllReduce(send.data(), recv.data(), count, DataType::kInt32, ReduceOp::kSum).ok()));
      const int32_t n = WorldSize();
      for (size_t i = 0; i < count; ++i) {
        ASSERT_EQ(recv[i], static_cast<int32_t>(i % 1000) * n * (n + 1) / 2)
            << name << " count " << count << " i " << i;
      }
    }
  }
}

TEST_F(AutoChoiceCommunicatorTest, BadProfileFailsCreateNamingPathAndField) {
  const std::string path = RankFile("bad.json", R"({"schema_version": 1, "intra": {"alpha_s": 1e-6}})");
  CommunicatorOptions options;
  options.profile_path = path;
  auto comm = Communicator::Create(MPI_COMM_WORLD, options);
  ASSERT_FALSE(comm.ok());
  EXPECT_THAT(comm, IsInvalidArgument("profile_path: " + path));
  EXPECT_THAT(comm.status().message(), HasSubstr("'intra.beta_s_per_byte' is missing"));

  setenv("KCOLL_PROFILE", "/nonexistent/kcoll_profile.json", 1);
  comm = Communicator::Create(MPI_COMM_WORLD);
  ASSERT_FALSE(comm.ok());
  EXPECT_EQ(comm.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(comm.status().message(),
              HasSubstr("KCOLL_PROFILE: profile path '/nonexistent/kcoll_profile.json' cannot be read"));
}

// A profile that loads on some ranks only fails Create everywhere (instead of leaving ranks waiting).
TEST_F(AutoChoiceCommunicatorTest, ProfileMissingOnOneRankFailsEveryRank) {
  if (WorldSize() < 2) GTEST_SKIP() << "needs 2 ranks";
  CommunicatorOptions options;
  options.profile_path =
      WorldRank() == 1 ? std::string("/nonexistent/only_here.json") : ProfileFile("good.json", 1e-6, 1e-10);
  auto comm = Communicator::Create(MPI_COMM_WORLD, options);
  ASSERT_FALSE(comm.ok());
  EXPECT_EQ(comm.status().code(), absl::StatusCode::kInvalidArgument);
  if (WorldRank() == 1) {
    EXPECT_THAT(comm.status().message(), HasSubstr("/nonexistent/only_here.json"));
  } else {
    EXPECT_THAT(comm.status().message(), HasSubstr("the profile failed to load on 1 other rank(s)"));
  }
  // Everyone is still in step.
  auto good = Communicator::Create(MPI_COMM_WORLD);
  ASSERT_TRUE(AllRanks(good.ok()));
  int32_t one = 1, total = 0;
  ASSERT_TRUE((*good)->AllReduce(&one, &total, 1, DataType::kInt32, ReduceOp::kSum).ok());
  EXPECT_EQ(total, WorldSize());
}

// SetProfile: auto chooses by the new profile from the next call on, and calls run what it chose; a profile that
// does not load fails the call and leaves the previous one in place.
TEST_F(AutoChoiceCommunicatorTest, SetProfileSwitchesTheChoice) {
  CommunicatorOptions options;
  options.profile_path = ProfileFile("latency.json", 1.0, 1e-15);
  auto comm = Communicator::Create(MPI_COMM_WORLD, options);
  ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
  // A choice made with the first profile (the communicator keeps its latest one) must not outlive it.
  ASSERT_TRUE((*comm)->ResolveAlgorithm(Collective::kAllReduce, size_t{1} << 20, Algorithm::kAuto).ok());
  const std::string bandwidth = ProfileFile("bandwidth.json", 1e-15, 1.0);
  ASSERT_TRUE(AllRanks((*comm)->SetProfile(bandwidth).ok()));
  EXPECT_EQ((*comm)->auto_choice().profile_source(), "profile_path=" + bandwidth);
  const models::Profile& profile = (*comm)->auto_choice().profile();
  EXPECT_EQ(profile.intra.beta_s_per_byte, 1.0);
  for (size_t bytes : {size_t{1} << 20, size_t{8}, size_t{64} << 20}) {
    auto chosen = (*comm)->ResolveAlgorithm(Collective::kAllReduce, bytes, Algorithm::kAuto);
    ASSERT_TRUE(chosen.ok()) << chosen.status();
    if (!models::Applies(Collective::kAllReduce, *chosen)) continue;
    EXPECT_LE(Seconds(**comm, Collective::kAllReduce, *chosen, bytes, profile),
              BestSeconds(**comm, Collective::kAllReduce, bytes, profile) * (1 + 1e-9))
        << bytes << " B: " << AlgorithmName(*chosen);
  }
  const size_t count = 300000;
  std::vector<int32_t> send(count, WorldRank() + 1), recv(count, -1);
  ASSERT_TRUE(AllRanks((*comm)->AllReduce(send.data(), recv.data(), count, DataType::kInt32, ReduceOp::kSum).ok()));
  const int32_t n = WorldSize();
  EXPECT_EQ(std::count(recv.begin(), recv.end(), n * (n + 1) / 2), static_cast<std::ptrdiff_t>(count));

  // Empty: $KCOLL_PROFILE, else the built-in profile of the communicator's transport, as at Create.
  ASSERT_TRUE(AllRanks((*comm)->SetProfile("").ok()));
  EXPECT_EQ((*comm)->auto_choice().profile_source(),
            (*comm)->transport() == TransportKind::kShm ? "built-in (shm)" : "built-in");
}

TEST_F(AutoChoiceCommunicatorTest, SetProfileErrorsKeepThePreviousProfile) {
  CommunicatorOptions options;
  options.profile_path = ProfileFile("first.json", 2e-6, 1e-10);
  auto comm = Communicator::Create(MPI_COMM_WORLD, options);
  ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
  const std::string bad = RankFile("bad_set.json", R"({"schema_version": 1, "intra": {"alpha_s": -1}})");
  absl::Status s = (*comm)->SetProfile(bad);
  ASSERT_FALSE(AllRanks(s.ok()));
  EXPECT_THAT(s, IsInvalidArgument("profile_path: " + bad));
  EXPECT_EQ((*comm)->auto_choice().profile_source(), "profile_path=" + options.profile_path);
  EXPECT_EQ((*comm)->auto_choice().profile().intra.alpha_s, 2e-6);

  if (WorldSize() >= 2) {
    // Missing on one rank only: every rank fails, and every rank keeps its profile.
    const std::string path =
        WorldRank() == 1 ? std::string("/nonexistent/set_here.json") : ProfileFile("second.json", 3e-6, 1e-10);
    s = (*comm)->SetProfile(path);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(s.message(), WorldRank() == 1 ? HasSubstr("/nonexistent/set_here.json")
                                              : HasSubstr("the profile failed to load on 1 other rank(s)"));
    EXPECT_EQ((*comm)->auto_choice().profile().intra.alpha_s, 2e-6);
  }

  ASSERT_TRUE((*comm)->Finalize().ok());
  s = (*comm)->SetProfile(options.profile_path);
  EXPECT_THAT(s, IsInvalidArgument("after Finalize()"));
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
