#include "bench/options/launcher.h"

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
  LaunchPlan plan = PlanLaunch(o, "/usr/bin/mpirun", "/bin/prog", {"-b", "8"}, 2);
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
  LaunchPlan plan = PlanLaunch(o, "mpirun", "prog", {}, 2);
  EXPECT_THAT(plan.argv, Contains("core:overload-allowed"));
  EXPECT_EQ(Env(plan, "OMPI_MCA_mpi_yield_when_idle"), "1");
  EXPECT_EQ(Env(plan, "KCOLL_RANKS_PER_NODE"), "4");
  EXPECT_THAT(plan.force, Contains(Pair("KCOLL_RANKS_PER_NODE", "4")));
}

TEST(LauncherTest, OpenMpSharesTheCoresAndIsNotBound) {
  BenchOptions o;
  o.ranks = 2;
  o.exec = "openmp";
  LaunchPlan plan = PlanLaunch(o, "mpirun", "prog", {}, 8);
  EXPECT_THAT(plan.argv, Contains("none"));
  EXPECT_EQ(Env(plan, "OMP_NUM_THREADS"), "4");
}

}  // namespace
}  // namespace bench
}  // namespace kcoll
