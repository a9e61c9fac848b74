#include "bench/options/launcher.h"

#include <cstdio>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/matchers.h"

namespace kcoll {
namespace bench {
namespace {

std::string Env(const LaunchPlan& plan, const std::string& name) {
  for (const auto& kv : plan.env) {
    if (kv.first == name) return kv.second;
  }
  for (const auto& kv : plan.force) {
    if (kv.first == name) return kv.second;
  }
  return "<unset>";
}

TEST(LauncherTest, SelfExecutableIsThisTestBinary) {
  const std::string self = SelfExecutable();
  EXPECT_THAT(self, ::testing::StartsWith("/"));
  EXPECT_THAT(self, ::testing::EndsWith("/launcher_test"));
}

TEST(LauncherTest, SerialRanksThatFitAreBoundToCores) {
  BenchOptions o;
  o.ranks = 2;
  LaunchPlan plan = PlanLaunch(o, "/usr/bin/mpirun", "/bin/prog", {"-b", "8"}, 2, MpiLauncher::kOpenMpi);
  EXPECT_THAT(plan.argv, ElementsAre("/usr/bin/mpirun", "-np", "2", "--oversubscribe", "--bind-to", "core", "/bin/prog",
                                     "-b", "8"));
  EXPECT_EQ(Env(plan, "OMP_NUM_THREADS"), "1");
  EXPECT_EQ(Env(plan, "OMPI_MCA_mpi_yield_when_idle"), "<unset>");
  EXPECT_EQ(Env(plan, "KCOLL_BENCH_LAUNCHED"), "1");
  EXPECT_EQ(Env(plan, "KCOLL_RANKS_PER_NODE"), "<unset>");
  EXPECT_NE(Env(plan, "KCOLL_BENCH_STDOUT_IS_TTY"), "<unset>");
}

TEST(LauncherTest, OversubscribedRanksShareCoresRoundRobinAndYield) {
  BenchOptions o;
  o.ranks = 8;
  o.ranks_per_node = 4;
  LaunchPlan plan = PlanLaunch(o, "mpirun", "prog", {}, 2, MpiLauncher::kOpenMpi);
  EXPECT_THAT(plan.argv, Contains("core:overload-allowed"));
  EXPECT_EQ(Env(plan, "OMPI_MCA_mpi_yield_when_idle"), "1");
  EXPECT_EQ(Env(plan, "KCOLL_RANKS_PER_NODE"), "4");
  EXPECT_THAT(plan.force, Contains(Pair("KCOLL_RANKS_PER_NODE", "4")));
}

TEST(LauncherTest, HydraGetsTheSameBindingInItsSyntax) {
  BenchOptions o;
  o.ranks = 8;
  LaunchPlan plan = PlanLaunch(o, "/usr/bin/mpirun.mpich", "prog", {"-b", "8"}, 2, MpiLauncher::kHydra);
  EXPECT_THAT(plan.argv, ElementsAre("/usr/bin/mpirun.mpich", "-np", "8", "-bind-to", "core", "prog", "-b", "8"));
  EXPECT_THAT(plan.description, HasSubstr("mpiexec -np 8 -bind-to core (2 cores, oversubscribed"));
  o.ranks = 2;
  o.exec = "openmp";
  EXPECT_THAT(PlanLaunch(o, "mpiexec", "prog", {}, 2, MpiLauncher::kHydra).argv,
              ElementsAre("mpiexec", "-np", "2", "-bind-to", "none", "prog"));
}

TEST(LauncherTest, TheBuildsLauncherKindIsWhatItsMpirunSays) {
  // The kind comes from the MPI headers this test was built with, the mpirun from the build's MPI wrapper: they
  // must agree, or every launch would pass the other launcher's flags.
  std::string version;
  if (FILE* p = popen((MpirunPath() + " --version 2>&1").c_str(), "r")) {
    char buffer[256];
    while (std::fgets(buffer, sizeof(buffer), p) != nullptr) version += buffer;
    pclose(p);
  }
  const bool hydra = version.find("HYDRA") != std::string::npos;
  const bool open_mpi = version.find("Open MPI") != std::string::npos || version.find("OpenRTE") != std::string::npos;
  ASSERT_TRUE(hydra || open_mpi) << MpirunPath() << " --version said: " << version;
  EXPECT_EQ(BuiltMpiLauncher() == MpiLauncher::kHydra, hydra) << MpiLauncherName(BuiltMpiLauncher());
}

TEST(LauncherTest, HostsRunThroughTheClusterScript) {
  BenchOptions o;
  o.ranks = 4;
  o.hosts = 2;
  LaunchPlan plan = PlanHostsLaunch(o, "/x/cluster.sh", "/bin/prog", {"-b", "8"});
  ASSERT_GE(plan.argv.size(), 10u);
  EXPECT_EQ(plan.argv[0], "/bin/bash");
  // The script's arguments: the cluster script, 2 hosts of 2 ranks, then the program and its arguments.
  EXPECT_EQ(std::vector<std::string>(plan.argv.begin() + 4, plan.argv.end()),
            (std::vector<std::string>{"/x/cluster.sh", "2", "2", "/bin/prog", "-b", "8"}));
  EXPECT_THAT(plan.argv[2], HasSubstr("\"$c\" run \"$@\""));
  EXPECT_THAT(plan.argv[2], HasSubstr("trap '\"$c\" down"));
  EXPECT_THAT(plan.description, HasSubstr("2 hosts x 2 ranks"));
  EXPECT_THAT(Env(plan, "KCOLL_CLUSTER"), ::testing::StartsWith("kb"));
}

TEST(LauncherTest, OpenMpSharesTheCoresAndIsNotBound) {
  BenchOptions o;
  o.ranks = 2;
  o.exec = "openmp";
  LaunchPlan plan = PlanLaunch(o, "mpirun", "prog", {}, 8, MpiLauncher::kOpenMpi);
  EXPECT_THAT(plan.argv, Contains("none"));
  EXPECT_EQ(Env(plan, "OMP_NUM_THREADS"), "4");
}

}  // namespace
}  // namespace bench
}  // namespace kcoll
