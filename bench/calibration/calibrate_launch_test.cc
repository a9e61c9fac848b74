// The calibration launcher's command line and output path.
#include "bench/calibration/calibrate_launch.h"

#include <cstdlib>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/matchers.h"

namespace kcoll {
namespace bench {
namespace {

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
  LaunchCommand c =
      MakeLaunchCommand("/usr/bin/mpirun", "/bin/calibrate", 4, {"--out=/x.json"}, 2, "", MpiLauncher::kOpenMpi);
  EXPECT_THAT(c.argv, ElementsAre("/usr/bin/mpirun", "-np", "4", "--oversubscribe", "--bind-to",
                                  "core:overload-allowed", "/bin/calibrate", "--out=/x.json"));
  auto has = [](const std::vector<std::pair<std::string, std::string>>& env, const std::string& name) {
    return std::any_of(env.begin(), env.end(), [&](const auto& kv) { return kv.first == name; });
  };
  EXPECT_TRUE(has(c.default_env, "OMPI_ALLOW_RUN_AS_ROOT"));
  EXPECT_TRUE(has(c.default_env, "OMPI_MCA_mpi_yield_when_idle"));  // 4 ranks on 2 cores
  EXPECT_TRUE(c.force_env.empty());
  c = MakeLaunchCommand("/usr/bin/mpirun", "/bin/calibrate", 2, {}, 2, "/tmp/t", MpiLauncher::kOpenMpi);
  EXPECT_FALSE(has(c.default_env, "OMPI_MCA_mpi_yield_when_idle"));
  EXPECT_TRUE(has(c.force_env, "TMPDIR"));
  EXPECT_THAT(c.argv, ElementsAre("/usr/bin/mpirun", "-np", "2", "--oversubscribe", "--bind-to", "none",
                                  "/bin/calibrate"));  // inside a test: other jobs share the cores
  c = MakeLaunchCommand("/usr/bin/mpirun", "/bin/calibrate", 2, {}, 2, "", MpiLauncher::kOpenMpi);
  EXPECT_THAT(c.argv, ElementsAre("/usr/bin/mpirun", "-np", "2", "--oversubscribe", "--bind-to", "core",
                                  "/bin/calibrate"));  // as the benchmarks: one rank per core
  c = MakeLaunchCommand("/usr/bin/mpirun.mpich", "/bin/calibrate", 4, {}, 2, "", MpiLauncher::kHydra);
  EXPECT_THAT(c.argv, ElementsAre("/usr/bin/mpirun.mpich", "-np", "4", "-bind-to", "core", "/bin/calibrate"));
}

}  // namespace
}  // namespace bench
}  // namespace kcoll
