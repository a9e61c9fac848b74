// The KCOLL_DEBUG log: level parsing, the environment, file name patterns, and the NCCL-style line prefix.
#include "collectives/observability/log.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/matchers.h"
#include "tests/scoped_env.h"
#include "tests/test_files.h"

namespace kcoll {
namespace testing {
namespace {

TEST(LogLevel, ParsesCaseInsensitively) {
  EXPECT_EQ(ParseLogLevel("info").value(), LogLevel::kInfo);
  EXPECT_EQ(ParseLogLevel("TRACE").value(), LogLevel::kTrace);
  EXPECT_EQ(ParseLogLevel(" Warn ").value(), LogLevel::kWarn);
  EXPECT_EQ(ParseLogLevel("none").value(), LogLevel::kNone);
  auto bad = ParseLogLevel("verbose");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad, IsInvalidArgument("'verbose'"));
  EXPECT_THAT(bad.status().message(), HasSubstr("TRACE"));
}

TEST(LogConfig, ComesFromTheEnvironment) {
  // Unset for the test, restored after it.
  testing::ScopedEnv debug("KCOLL_DEBUG", nullptr), debug_file("KCOLL_DEBUG_FILE", nullptr);
  auto config = LogConfigFromEnv();
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config->level, LogLevel::kWarn);
  EXPECT_EQ(config->file_pattern, "");
  setenv("KCOLL_DEBUG", "TRACE", 1);
  setenv("KCOLL_DEBUG_FILE", "/tmp/x.%r", 1);
  config = LogConfigFromEnv();
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config->level, LogLevel::kTrace);
  EXPECT_EQ(config->file_pattern, "/tmp/x.%r");
  setenv("KCOLL_DEBUG", "LOUD", 1);
  config = LogConfigFromEnv();
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(config.status().message(), HasSubstr("KCOLL_DEBUG"));
  EXPECT_THAT(config.status().message(), HasSubstr("LOUD"));
}

TEST(LogFileName, ReplacesRankHostPid) {
  EXPECT_EQ(ExpandLogFileName("log.%r", 3, "vm", 77), "log.3");
  EXPECT_EQ(ExpandLogFileName("%h-%p-%r.txt", 0, "n1", 123), "n1-123-0.txt");
  EXPECT_EQ(ExpandLogFileName("100%%-%x-%", 1, "h", 1), "100%-%x-%");
}

TEST(Logger, PrefixesEveryLineLikeNccl) {
  EXPECT_EQ(Logger::Prefix("vm", 12, 34, 5, LogLevel::kInfo), "vm:12:34 [5] KCOLL INFO ");
  const std::string pattern = TempDir() + "/prefix.%r.log";
  LogConfig config{LogLevel::kInfo, pattern};
  auto logger = Logger::Create(config, /*world_rank=*/6, /*rank=*/2);
  ASSERT_TRUE(logger.ok()) << logger.status();
  EXPECT_TRUE(logger->Enabled(LogLevel::kWarn));
  EXPECT_TRUE(logger->Enabled(LogLevel::kInfo));
  EXPECT_FALSE(logger->Enabled(LogLevel::kTrace));
  logger->Log(LogLevel::kInfo, "first\nsecond\n");
  logger->Log(LogLevel::kTrace, "not written");
  logger->Log(LogLevel::kWarn, "careful");
  const std::string prefix = absl::StrCat(Host(), ":", getpid(), ":", syscall(SYS_gettid), " [2] KCOLL ");
  EXPECT_THAT(ReadLines(TempDir() + "/prefix.6.log"),
              ElementsAre(prefix + "INFO first", prefix + "INFO second", prefix + "WARN careful"));
}

TEST(Logger, LoggersNamingTheSameFileShareIt) {
  const std::string pattern = TempDir() + "/shared.log";
  auto a = Logger::Create({LogLevel::kInfo, pattern}, 0, 0);
  auto b = Logger::Create({LogLevel::kInfo, pattern}, 0, 1);
  ASSERT_TRUE(a.ok() && b.ok());
  a->Log(LogLevel::kInfo, "from a");
  b->Log(LogLevel::kInfo, "from b");
  const std::vector<std::string> lines = ReadLines(pattern);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[0], HasSubstr("[0] KCOLL INFO from a"));
  EXPECT_THAT(lines[1], HasSubstr("[1] KCOLL INFO from b"));
}

TEST(Logger, UnopenableFileIsAnError) {
  auto logger = Logger::Create({LogLevel::kInfo, "/nonexistent-dir/kcoll.%r"}, 4, 0);
  ASSERT_FALSE(logger.ok());
  EXPECT_THAT(logger, IsInvalidArgument("KCOLL_DEBUG_FILE"));
  EXPECT_THAT(logger.status().message(), HasSubstr("/nonexistent-dir/kcoll.4"));
}

TEST(Logger, NoneWritesNothing) {
  auto logger = Logger::Create({LogLevel::kNone, "/nonexistent-dir/never-opened"}, 0, 0);
  ASSERT_TRUE(logger.ok());
  EXPECT_FALSE(logger->Enabled(LogLevel::kWarn));
  logger->Log(LogLevel::kWarn, "dropped");
  EXPECT_FALSE(Logger().Enabled(LogLevel::kWarn));
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
