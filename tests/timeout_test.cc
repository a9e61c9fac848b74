// Timeout settings: parsing, and the order options > KCOLL_TIMEOUT > KCOLL_NCCL_TIMEOUT (NCCL only) > default.
#include "collectives/transport/timeout.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/matchers.h"
#include "tests/scoped_env.h"

namespace kcoll {
namespace testing {
namespace {

TEST(ParseTimeout, SecondsOrDurations) {
  EXPECT_EQ(*ParseTimeout("30", "T"), absl::Seconds(30));
  EXPECT_EQ(*ParseTimeout("2.5", "T"), absl::Milliseconds(2500));
  EXPECT_EQ(*ParseTimeout("90s", "T"), absl::Seconds(90));
  EXPECT_EQ(*ParseTimeout("2m", "T"), absl::Minutes(2));
  EXPECT_EQ(*ParseTimeout(" 500ms ", "T"), absl::Milliseconds(500));
}

TEST(ParseTimeout, ZeroIsNoLimit) {
  EXPECT_EQ(*ParseTimeout("0", "T"), absl::InfiniteDuration());
  EXPECT_EQ(*ParseTimeout("0s", "T"), absl::InfiniteDuration());
}

TEST(ParseTimeout, RejectsNegativeInfiniteOrGarbage) {
  for (const char* bad : {"", "-5", "soon", "inf", "nan", "-1m", "10 parsecs"}) {
    auto parsed = ParseTimeout(bad, "KCOLL_TIMEOUT");
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(parsed.status().message(), HasSubstr(absl::StrCat("KCOLL_TIMEOUT: '", bad, "'")));
  }
}

TEST(ParseOnTimeout, ReturnOrAbort) {
  EXPECT_EQ(*ParseOnTimeout("return", "X"), OnTimeout::kReturn);
  EXPECT_EQ(*ParseOnTimeout(" ABORT ", "X"), OnTimeout::kAbort);
  auto bad = ParseOnTimeout("explode", "KCOLL_ON_TIMEOUT");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad, IsInvalidArgument("KCOLL_ON_TIMEOUT: 'explode' is not 'return' or 'abort'"));
}

class ChooseTimeoutTest : public ::testing::Test {
 protected:
  // Each test starts from an environment that says nothing.
  ScopedEnv timeout_{"KCOLL_TIMEOUT", nullptr};
  ScopedEnv nccl_timeout_{"KCOLL_NCCL_TIMEOUT", nullptr};
  ScopedEnv on_timeout_{"KCOLL_ON_TIMEOUT", nullptr};
};

TEST_F(ChooseTimeoutTest, DefaultsAreForeverOnMpiAndFiveMinutesOnNccl) {
  auto mpi = ChooseTimeout(std::nullopt, std::nullopt, TransportKind::kMpi);
  ASSERT_TRUE(mpi.ok()) << mpi.status();
  EXPECT_EQ(mpi->timeout, absl::InfiniteDuration());
  EXPECT_EQ(mpi->on_timeout, OnTimeout::kReturn);
  auto nccl = ChooseTimeout(std::nullopt, std::nullopt, TransportKind::kNccl);
  ASSERT_TRUE(nccl.ok()) << nccl.status();
  EXPECT_EQ(nccl->timeout, kDefaultNcclTimeout);
  // A stream waiting on CUDA IPC counters would wait forever too: the same bound, named as the GPU transports'.
  auto ipc = ChooseTimeout(std::nullopt, std::nullopt, TransportKind::kCudaIpc);
  ASSERT_TRUE(ipc.ok()) << ipc.status();
  EXPECT_EQ(ipc->timeout, kDefaultNcclTimeout);
  EXPECT_EQ(ipc->source, "the GPU transports' default");
  EXPECT_EQ(ChooseTimeout(std::nullopt, std::nullopt, TransportKind::kShm)->timeout, absl::InfiniteDuration());
}

TEST_F(ChooseTimeoutTest, EnvironmentThenOptions) {
  ScopedEnv env("KCOLL_TIMEOUT", "2m");
  ScopedEnv on("KCOLL_ON_TIMEOUT", "abort");
  auto from_env = ChooseTimeout(std::nullopt, std::nullopt, TransportKind::kMpi);
  ASSERT_TRUE(from_env.ok()) << from_env.status();
  EXPECT_EQ(from_env->timeout, absl::Minutes(2));
  EXPECT_EQ(from_env->source, "KCOLL_TIMEOUT");
  EXPECT_EQ(from_env->on_timeout, OnTimeout::kAbort);
  auto from_options = ChooseTimeout(absl::Seconds(3), OnTimeout::kReturn, TransportKind::kMpi);
  ASSERT_TRUE(from_options.ok()) << from_options.status();
  EXPECT_EQ(from_options->timeout, absl::Seconds(3));
  EXPECT_EQ(from_options->on_timeout, OnTimeout::kReturn);
  // Zero in the options is no limit, as "0" in the environment.
  EXPECT_EQ(ChooseTimeout(absl::ZeroDuration(), std::nullopt, TransportKind::kNccl)->timeout, absl::InfiniteDuration());
}

TEST_F(ChooseTimeoutTest, TheOlderNcclVariableIsAnAliasForNcclOnly) {
  ScopedEnv env("KCOLL_NCCL_TIMEOUT", "90s");
  EXPECT_EQ(ChooseTimeout(std::nullopt, std::nullopt, TransportKind::kNccl)->timeout, absl::Seconds(90));
  EXPECT_EQ(ChooseTimeout(std::nullopt, std::nullopt, TransportKind::kMpi)->timeout, absl::InfiniteDuration());
  EXPECT_EQ(ChooseTimeout(std::nullopt, std::nullopt, TransportKind::kCudaIpc)->timeout, kDefaultNcclTimeout);
  ScopedEnv newer("KCOLL_TIMEOUT", "30s");
  EXPECT_EQ(ChooseTimeout(std::nullopt, std::nullopt, TransportKind::kNccl)->timeout, absl::Seconds(30));
}

TEST_F(ChooseTimeoutTest, ErrorsNameTheSetting) {
  auto negative = ChooseTimeout(absl::Seconds(-1), std::nullopt, TransportKind::kMpi);
  ASSERT_FALSE(negative.ok());
  EXPECT_THAT(negative, IsInvalidArgument("timeout: -1s is negative"));
  {
    ScopedEnv env("KCOLL_TIMEOUT", "soon");
    auto bad = ChooseTimeout(std::nullopt, std::nullopt, TransportKind::kMpi);
    ASSERT_FALSE(bad.ok());
    EXPECT_THAT(bad.status().message(), HasSubstr("KCOLL_TIMEOUT: 'soon'"));
  }
  {
    ScopedEnv env("KCOLL_ON_TIMEOUT", "later");
    auto bad = ChooseTimeout(std::nullopt, std::nullopt, TransportKind::kMpi);
    ASSERT_FALSE(bad.ok());
    EXPECT_THAT(bad.status().message(), HasSubstr("KCOLL_ON_TIMEOUT: 'later'"));
  }
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
