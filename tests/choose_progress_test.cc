// How a communicator's nonblocking calls progress: a thread where it may run, else eagerly; the stream on a
// stream-ordered transport; and the errors of asking for what cannot run.
#include "collectives/progress/choose_progress.h"

#include <mpi.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/scoped_env.h"

namespace kcoll {
namespace {

using ::testing::HasSubstr;
using testing::ScopedEnv;

ProgressSituation Situation(ExecBackend backend, bool calls_mpi, int level) {
  ProgressSituation s;
  s.backend = backend;
  s.calls_mpi = calls_mpi;
  s.mpi_thread_level = level;
  return s;
}

TEST(ChooseProgressTest, ThreadWhereItMayRunElseEager) {
  ScopedEnv env("KCOLL_PROGRESS", nullptr);
  // One node over shm makes no MPI call on a transfer: a thread needs nothing from MPI.
  auto shm = ChooseProgress(std::nullopt, Situation(ExecBackend::kSerial, false, MPI_THREAD_SINGLE));
  ASSERT_TRUE(shm.ok()) << shm.status();
  EXPECT_EQ(shm->way, ProgressWay::kThread);
  auto multiple = ChooseProgress(std::nullopt, Situation(ExecBackend::kSerial, true, MPI_THREAD_MULTIPLE));
  ASSERT_TRUE(multiple.ok());
  EXPECT_EQ(multiple->way, ProgressWay::kThread);
  auto single = ChooseProgress(std::nullopt, Situation(ExecBackend::kSerial, true, MPI_THREAD_FUNNELED));
  ASSERT_TRUE(single.ok());
  EXPECT_EQ(single->way, ProgressWay::kEager);
  EXPECT_THAT(single->reason, HasSubstr("MPI_THREAD_MULTIPLE"));
  auto openmp = ChooseProgress(std::nullopt, Situation(ExecBackend::kOpenMP, false, MPI_THREAD_MULTIPLE));
  ASSERT_TRUE(openmp.ok());
  EXPECT_EQ(openmp->way, ProgressWay::kEager);
  EXPECT_THAT(openmp->reason, HasSubstr("openmp"));
}

TEST(ChooseProgressTest, AskingForAThreadThatCannotRunFails) {
  ScopedEnv env("KCOLL_PROGRESS", nullptr);
  auto asked = ChooseProgress(Progress::kThread, Situation(ExecBackend::kSerial, true, MPI_THREAD_SERIALIZED));
  EXPECT_EQ(asked.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(asked.status().message()), HasSubstr("CommunicatorOptions::progress: thread"));
  EXPECT_THAT(std::string(asked.status().message()), HasSubstr("MPI_THREAD_MULTIPLE"));
  ScopedEnv thread("KCOLL_PROGRESS", "thread");
  auto from_env = ChooseProgress(std::nullopt, Situation(ExecBackend::kCuda, false, MPI_THREAD_MULTIPLE));
  EXPECT_EQ(from_env.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(from_env.status().message()), HasSubstr("KCOLL_PROGRESS: thread"));
  EXPECT_THAT(std::string(from_env.status().message()), HasSubstr("cuda"));
}

TEST(ChooseProgressTest, EnvironmentAndOptionsChoose) {
  ScopedEnv eager("KCOLL_PROGRESS", "EAGER");
  auto from_env = ChooseProgress(std::nullopt, Situation(ExecBackend::kSerial, false, MPI_THREAD_MULTIPLE));
  ASSERT_TRUE(from_env.ok());
  EXPECT_EQ(from_env->way, ProgressWay::kEager);
  EXPECT_THAT(from_env->reason, HasSubstr("KCOLL_PROGRESS"));
  // The option wins over the environment.
  auto option = ChooseProgress(Progress::kThread, Situation(ExecBackend::kSerial, false, MPI_THREAD_SINGLE));
  ASSERT_TRUE(option.ok());
  EXPECT_EQ(option->way, ProgressWay::kThread);
  ScopedEnv bad("KCOLL_PROGRESS", "background");
  auto invalid = ChooseProgress(std::nullopt, Situation(ExecBackend::kSerial, false, MPI_THREAD_MULTIPLE));
  EXPECT_EQ(invalid.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(invalid.status().message()), HasSubstr("KCOLL_PROGRESS: "));
  EXPECT_THAT(std::string(invalid.status().message()), HasSubstr("background"));
}

TEST(ChooseProgressTest, StreamOrderedTransportsUseTheirStream) {
  ScopedEnv env("KCOLL_PROGRESS", "eager");
  ProgressSituation s = Situation(ExecBackend::kCuda, true, MPI_THREAD_SINGLE);
  s.stream_ordered = true;
  auto chosen = ChooseProgress(std::nullopt, s);
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(chosen->way, ProgressWay::kStream);
}

}  // namespace
}  // namespace kcoll
