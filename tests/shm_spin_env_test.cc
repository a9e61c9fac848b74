// KCOLL_SHM_SPIN as the shared-memory transport reads it (SpinPollsFromEnv), which the benchmarks' aligned start
// reads too: unset is 0 (chosen from the cores), a size is that many polls, anything else an error naming it.
#include "collectives/transport/shm/shm_execution.h"
#include "gtest/gtest.h"
#include "tests/matchers.h"
#include "tests/scoped_env.h"

namespace kcoll {
namespace testing {
namespace {

TEST(SpinPollsFromEnv, UnsetIsChosenFromTheCores) {
  ScopedEnv env("KCOLL_SHM_SPIN", nullptr);
  EXPECT_EQ(SpinPollsFromEnv().value(), 0);
}

TEST(SpinPollsFromEnv, ASizeIsThatManyPolls) {
  {
    ScopedEnv env("KCOLL_SHM_SPIN", "1");
    EXPECT_EQ(SpinPollsFromEnv().value(), 1);
  }
  ScopedEnv env("KCOLL_SHM_SPIN", "1K");
  EXPECT_EQ(SpinPollsFromEnv().value(), 1024);
}

TEST(SpinPollsFromEnv, RefusesWhatIsNotASizeOrTooMany) {
  {
    ScopedEnv env("KCOLL_SHM_SPIN", "often");
    EXPECT_THAT(SpinPollsFromEnv(), IsInvalidArgument("KCOLL_SHM_SPIN: 'often' is not a size in bytes"));
  }
  ScopedEnv env("KCOLL_SHM_SPIN", "2G");
  EXPECT_THAT(SpinPollsFromEnv(), IsInvalidArgument("KCOLL_SHM_SPIN: 2147483648 is over 2^30"));
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
