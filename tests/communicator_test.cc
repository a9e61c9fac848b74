// The Communicator's argument checks: every bad input gives InvalidArgument naming the argument and its value, on
// every rank, before any traffic (a following collective still works, which it would not if some rank had sent).
#include "collectives/communicator.h"

#include <Kokkos_Core.hpp>
#include <cstdlib>
#include <memory>
#include <vector>

#include "collectives/views.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/make_communicator.h"
#include "tests/matchers.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace testing {
namespace {

// After a refused call every rank must still be in step: a real AllReduce gives the right answer.
void ExpectStillInStep(Communicator& comm) {
  int32_t one = 1, total = 0;
  ASSERT_TRUE(comm.AllReduce(&one, &total, 1, DataType::kInt32, ReduceOp::kSum).ok());
  EXPECT_EQ(total, WorldSize());
}

TEST(CommunicatorArgs, NullBuffersWithElementsAreRefused) {
  auto comm = MakeCommunicator();
  std::vector<float> buf(10);
  absl::Status s = comm->AllReduce(nullptr, buf.data(), 10, DataType::kFloat32, ReduceOp::kSum);
  EXPECT_THAT(s, IsInvalidArgument("sendbuf is null with count 10"));
  s = comm->AllReduce(buf.data(), nullptr, 10, DataType::kFloat32, ReduceOp::kSum);
  EXPECT_THAT(s.message(), HasSubstr("recvbuf is null with count 10"));
  // Zero elements need no buffers.
  EXPECT_TRUE(comm->AllReduce(nullptr, nullptr, 0, DataType::kFloat32, ReduceOp::kSum).ok());
  ExpectStillInStep(*comm);
}

TEST(CommunicatorArgs, UnknownTypeAndOpAreRefused) {
  auto comm = MakeCommunicator();
  int32_t x = 1, y = 0;
  absl::Status s = comm->AllReduce(&x, &y, 1, static_cast<DataType>(99), ReduceOp::kSum);
  EXPECT_THAT(s, IsInvalidArgument("type 99"));
  s = comm->AllReduce(&x, &y, 1, DataType::kInt32, static_cast<ReduceOp>(-1));
  EXPECT_THAT(s, IsInvalidArgument("op -1"));
  ExpectStillInStep(*comm);
}

TEST(CommunicatorArgs, DeviceMemoryIsRefusedByHostTransport) {
  auto comm = MakeCommunicator();
  int32_t x = 1, y = 0;
  absl::Status s = comm->AllReduce(&x, &y, 1, DataType::kInt32, ReduceOp::kSum, {}, MemoryKind::kDevice);
  EXPECT_THAT(s, IsInvalidArgument("device memory are not reachable"));
  ExpectStillInStep(*comm);
}

TEST(CommunicatorArgs, AlgorithmThatDoesNotApplyIsRefused) {
  auto comm = MakeCommunicator();
  int32_t x = 1, y = 0;
  CallOptions options;
  options.algorithm = Algorithm::kChain;
  absl::Status s = comm->AllReduce(&x, &y, 1, DataType::kInt32, ReduceOp::kSum, options);
  EXPECT_THAT(s, IsInvalidArgument("algorithm 'chain' does not apply to all_reduce"));
  ExpectStillInStep(*comm);
}

TEST(CommunicatorArgs, UseAfterFinalizeIsRefused) {
  auto comm = MakeCommunicator();
  ASSERT_TRUE(comm->Finalize().ok());
  EXPECT_TRUE(comm->finalized());
  int32_t x = 1, y = 0;
  absl::Status s = comm->AllReduce(&x, &y, 1, DataType::kInt32, ReduceOp::kSum);
  EXPECT_THAT(s, IsInvalidArgument("used after Finalize()"));
  EXPECT_TRUE(comm->Finalize().ok());  // finalising twice is harmless
}

TEST(CommunicatorCreate, RanksPerNodeMustDivideRankCount) {
  CommunicatorOptions options;
  options.ranks_per_node = WorldSize() + 1;
  auto comm = Communicator::Create(MPI_COMM_WORLD, options);
  ASSERT_FALSE(comm.ok());
  EXPECT_EQ(comm.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(comm.status().message(), HasSubstr(absl::StrCat("ranks_per_node: ", WorldSize() + 1,
                                                              " does not divide the number of ranks ", WorldSize())));
}

TEST(CommunicatorCreate, EnvironmentSettingsAreValidated) {
  setenv("KCOLL_EXEC", "sycl", 1);
  auto comm = Communicator::Create(MPI_COMM_WORLD);
  unsetenv("KCOLL_EXEC");
  ASSERT_FALSE(comm.ok());
  EXPECT_THAT(comm.status().message(), HasSubstr("KCOLL_EXEC: execution backend 'sycl'"));

  setenv("KCOLL_RANKS_PER_NODE", "two", 1);
  comm = Communicator::Create(MPI_COMM_WORLD);
  unsetenv("KCOLL_RANKS_PER_NODE");
  ASSERT_FALSE(comm.ok());
  EXPECT_THAT(comm.status().message(), HasSubstr("KCOLL_RANKS_PER_NODE: 'two' is not an integer"));
}

TEST(CommunicatorCreate, EmulatedNodesShapeTheTopology) {
  const int n = WorldSize();
  CommunicatorOptions options;
  options.ranks_per_node = 1;
  auto comm = MakeCommunicator(options);
  EXPECT_EQ(comm->topology().nnodes, n);
  EXPECT_TRUE(comm->topology().emulated);
  EXPECT_EQ(comm->topology().uniform_ranks_per_node(), 1);
  comm = MakeCommunicator();  // nodes from MPI: one machine
  EXPECT_EQ(comm->topology().nnodes, 1);
  EXPECT_FALSE(comm->topology().emulated);
  EXPECT_EQ(comm->rank(), WorldRank());
}

TEST(CommunicatorViews, AllReduceOnViewsAndItsChecks) {
  auto comm = MakeCommunicator();
  const int n = WorldSize();
  Kokkos::View<int64_t*, Kokkos::HostSpace> send("send", 33), recv("recv", 33);
  for (int i = 0; i < 33; ++i) send(i) = i * (WorldRank() + 1);
  ASSERT_TRUE(AllReduce(*comm, send, recv, ReduceOp::kSum).ok());
  for (int i = 0; i < 33; ++i) EXPECT_EQ(recv(i), static_cast<int64_t>(i) * n * (n + 1) / 2) << i;

  Kokkos::View<int64_t*, Kokkos::HostSpace> shorter("shorter", 32);
  absl::Status s = AllReduce(*comm, send, shorter, ReduceOp::kSum);
  EXPECT_THAT(s.message(), HasSubstr("send view has 33 elements but recv view has 32"));

  Kokkos::View<int64_t**, Kokkos::LayoutRight, Kokkos::HostSpace> matrix("matrix", 4, 4);
  auto column = Kokkos::subview(matrix, Kokkos::ALL(), 1);
  s = AllReduce(*comm, column, column, ReduceOp::kSum);
  EXPECT_THAT(s, IsInvalidArgument("is not contiguous"));
  ExpectStillInStep(*comm);
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
