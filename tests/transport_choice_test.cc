// What `auto` runs a communicator over: the rule that compares CUDA IPC with MPI (cuda_ipc only when no slower at
// both sizes), and ChooseDeviceTransport's answers where it does not measure (one rank, several nodes) or cannot
// (no GPU here: cuda_ipc cannot be made, said on every rank alike).
#include "collectives/transport_choice.h"

#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace testing {
namespace {

using ::testing::HasSubstr;

TEST(TransportChoiceTest, WithoutMeasuringHostKernelsTakeShmAndCudaKernelsMpi) {
  const Topology one = MakeTopology(0, {0, 0}, /*emulated=*/false);
  EXPECT_EQ(AutoTransport(one, ExecBackend::kSerial), TransportKind::kShm);
  EXPECT_EQ(AutoTransport(one, ExecBackend::kCuda), TransportKind::kMpi);
}

TEST(TransportChoiceTest, CudaIpcOnlyWhenNoSlowerAtBothSizes) {
  const TransportDecision faster = ChooseByExchangeTimes({11.0, 150.0}, {45.0, 2100.0});
  EXPECT_EQ(faster.kind, TransportKind::kCudaIpc);
  EXPECT_THAT(faster.reason, HasSubstr("8 B 11.0 / 45.0, 4 MiB 150.0 / 2100.0"));
  EXPECT_EQ(ChooseByExchangeTimes({10.0, 100.0}, {10.0, 100.0}).kind, TransportKind::kCudaIpc);  // ties: no slower
  const TransportDecision slower_small = ChooseByExchangeTimes({50.0, 150.0}, {45.0, 2100.0});
  EXPECT_EQ(slower_small.kind, TransportKind::kMpi);
  EXPECT_THAT(slower_small.reason, HasSubstr("cuda_ipc was not faster at both sizes"));
  EXPECT_EQ(ChooseByExchangeTimes({11.0, 2200.0}, {45.0, 2100.0}).kind, TransportKind::kMpi);
}

TEST(TransportChoiceTest, OneRankOrSeveralNodesTakeMpiUnmeasured) {
  TimeoutSettings timeout;
  const TransportDecision alone =
      ChooseDeviceTransport(MPI_COMM_SELF, MakeTopology(0, {0}, /*emulated=*/false), GpuOptions{}, timeout);
  EXPECT_EQ(alone.kind, TransportKind::kMpi);
  EXPECT_THAT(alone.reason, HasSubstr("one rank"));
  const TransportDecision nodes =
      ChooseDeviceTransport(MPI_COMM_SELF, MakeEmulatedTopology(0, 4, 2), GpuOptions{}, timeout);
  EXPECT_EQ(nodes.kind, TransportKind::kMpi);
  EXPECT_THAT(nodes.reason, HasSubstr("ranks on 2 nodes"));
}

// Without a GPU (or a CUDA Kokkos) cuda_ipc cannot be made: every rank takes mpi and says why.
TEST(TransportChoiceTest, WithoutAGpuEveryRankTakesMpiAndSaysWhy) {
  if (WorldSize() < 2) GTEST_SKIP() << "measures between ranks: needs 2 or more";
  std::vector<int> labels(WorldSize(), 0);
  const Topology one_node = MakeTopology(WorldRank(), labels, /*emulated=*/false);
  TimeoutSettings timeout;
  timeout.timeout = absl::Seconds(60);
  const TransportDecision decision = ChooseDeviceTransport(MPI_COMM_WORLD, one_node, GpuOptions{}, timeout);
  // Where both could be made, the choice was measured (the same on every rank): nothing to refuse here.
  if (decision.reason.find("measured at creation") != std::string::npos) {
    GTEST_SKIP() << "a GPU is here: " << decision.reason;
  }
  EXPECT_THAT(decision.reason, HasSubstr("cuda_ipc cannot be made here"));
  std::printf("[kcoll] %s\n", decision.reason.c_str());
  const int mine = static_cast<int>(decision.kind);
  int lowest = mine, highest = mine;
  MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&mine, &highest, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(lowest, highest) << "ranks decided differently";
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
