// Choosing the transport and kernels of a Communicator: options and $KCOLL_TRANSPORT, and the errors for
// combinations that cannot run (NCCL with host kernels, NCCL or device kernels without CUDA), on every rank alike.
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "collectives/communicator.h"
#include "collectives/transport/transports.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/matchers.h"
#include "tests/mpi_test_env.h"
#include "tests/scoped_env.h"

namespace kcoll {
namespace testing {
namespace {

TEST(Execution, DefaultFollowsTheTopology) {
  // Auto: shared memory within a node, MPI between nodes (here emulated ones).
  auto one_node = Communicator::Create(MPI_COMM_WORLD);
  ASSERT_TRUE(AllRanks(one_node.ok())) << one_node.status();
  EXPECT_EQ((*one_node)->transport(), TransportKind::kShm);
  // 1 and 3 ranks: a 2 MiB ring of 64 KiB slots per pair (RingSlots).
  EXPECT_THAT((*one_node)->execution(), HasSubstr(absl::StrCat("shm: ", testing::WorldSize(), " ranks, 32 slots x ")));
  EXPECT_THAT((*one_node)->execution(), HasSubstr("serial kernels on host buffers"));
  if (testing::WorldSize() < 2) return;
  CommunicatorOptions two_nodes;
  two_nodes.ranks_per_node = 1;
  auto spread = Communicator::Create(MPI_COMM_WORLD, two_nodes);
  ASSERT_TRUE(AllRanks(spread.ok())) << spread.status();
  EXPECT_EQ((*spread)->transport(), TransportKind::kShm);
  EXPECT_THAT((*spread)->execution(), HasSubstr("shm: 1 ranks, 32 slots x "));  // a 2 MiB ring of 64 KiB slots
  EXPECT_THAT((*spread)->execution(), HasSubstr("on this node; mpi between nodes; serial kernels on host buffers"));
}

TEST(Execution, AutoInTheEnvironmentIsTheDefault) {
  ScopedEnv env("KCOLL_TRANSPORT", "Auto");
  auto comm = Communicator::Create(MPI_COMM_WORLD);
  ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
  EXPECT_EQ((*comm)->transport(), TransportKind::kShm);
}

TEST(Execution, SharedMemoryIsChosenByNameAndNeedsHostBuffers) {
  CommunicatorOptions options;
  options.transport = TransportKind::kShm;
  auto comm = Communicator::Create(MPI_COMM_WORLD, options);
  ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
  EXPECT_EQ((*comm)->transport(), TransportKind::kShm);
  // Device kernels: refused before anything is set up, whether or not this Kokkos has CUDA.
  auto mpi = MpiTransport::Create(MPI_COMM_WORLD);
  ASSERT_TRUE(mpi.ok()) << mpi.status();
  ExecutionRequest request;
  request.mpi = *std::move(mpi);
  request.backend = ExecBackend::kCuda;
  auto device = MakeExecution(TransportKind::kShm, std::move(request));
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(device.status().message(),
              HasSubstr("transport 'shm' needs a host execution backend (its buffers are host memory), not 'cuda'"));
}

TEST(Execution, TransportFromTheEnvironment) {
  ScopedEnv env("KCOLL_TRANSPORT", "MPI");
  auto comm = Communicator::Create(MPI_COMM_WORLD);
  ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
  EXPECT_EQ((*comm)->transport(), TransportKind::kMpi);
}

TEST(Execution, UnknownTransportInTheEnvironment) {
  ScopedEnv env("KCOLL_TRANSPORT", "gloo");
  auto comm = Communicator::Create(MPI_COMM_WORLD);
  ASSERT_FALSE(AllRanks(comm.ok()));
  EXPECT_EQ(comm.status().code(), absl::StatusCode::kInvalidArgument);
  std::vector<std::string> listed;  // every transport of base/transport_kind.h, in its order
#define KCOLL_LISTED_TRANSPORT(enumerator, name, moves, node_memory, factory) listed.push_back(name);
  KCOLL_TRANSPORTS(KCOLL_LISTED_TRANSPORT)
#undef KCOLL_LISTED_TRANSPORT
  EXPECT_THAT(comm.status().message(), HasSubstr(absl::StrCat("KCOLL_TRANSPORT: transport 'gloo' is not one of: ",
                                                              absl::StrJoin(listed, ", "), " or auto")));
}

TEST(Execution, OptionOverridesTheEnvironment) {
  ScopedEnv env("KCOLL_TRANSPORT", "gloo");
  CommunicatorOptions options;
  options.transport = TransportKind::kMpi;
  auto comm = Communicator::Create(MPI_COMM_WORLD, options);
  ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
}

TEST(Execution, DeviceTransportsNeedTheCudaBackend) {
  for (TransportKind transport : {TransportKind::kNccl, TransportKind::kCudaIpc}) {
    for (ExecBackend backend : {ExecBackend::kSerial, ExecBackend::kOpenMP}) {
      CommunicatorOptions options;
      options.transport = transport;
      options.backend = backend;
      auto comm = Communicator::Create(MPI_COMM_WORLD, options);
      ASSERT_FALSE(AllRanks(comm.ok()));
      EXPECT_EQ(comm.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_THAT(comm.status().message(),
                  HasSubstr(absl::StrCat("transport '", TransportKindName(transport),
                                         "' needs the cuda execution backend (its buffers are device memory), not '",
                                         ExecBackendName(backend), "'")));
    }
  }
}

TEST(Execution, CudaIpcFromTheEnvironmentWithoutCudaIsAClearError) {
  if (IsAvailable(ExecBackend::kCuda)) GTEST_SKIP() << "this Kokkos has CUDA: the GPU tests cover cuda_ipc";
  ScopedEnv env("KCOLL_TRANSPORT", "cuda_ipc");
  auto comm = Communicator::Create(MPI_COMM_WORLD);  // the backend defaults to cuda with a device transport
  ASSERT_FALSE(AllRanks(comm.ok()));
#if defined(KCOLL_HAVE_CUDA)
  EXPECT_THAT(comm.status().message(), HasSubstr("execution backend 'cuda' is not enabled in this Kokkos"));
#else
  EXPECT_EQ(comm.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(comm.status().message(), HasSubstr("kcoll was built without the CUDA runtime"));
#endif
}

TEST(Execution, NcclFromTheEnvironmentWithoutCudaIsAClearError) {
  if (IsAvailable(ExecBackend::kCuda)) GTEST_SKIP() << "this Kokkos has CUDA: the GPU tests cover NCCL";
  ScopedEnv env("KCOLL_TRANSPORT", "nccl");
  auto comm = Communicator::Create(MPI_COMM_WORLD);  // the backend defaults to cuda with NCCL
  ASSERT_FALSE(AllRanks(comm.ok()));
#if defined(KCOLL_HAVE_NCCL)
  EXPECT_THAT(comm.status().message(), HasSubstr("execution backend 'cuda' is not enabled in this Kokkos"));
#else
  EXPECT_EQ(comm.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(comm.status().message(), HasSubstr("kcoll was built without NCCL"));
#endif
}

TEST(Execution, DeviceKernelsOverMpiNeedCudaKokkos) {
  if (IsAvailable(ExecBackend::kCuda)) GTEST_SKIP() << "this Kokkos has CUDA: the GPU tests cover device kernels";
  CommunicatorOptions options;
  options.backend = ExecBackend::kCuda;
  auto comm = Communicator::Create(MPI_COMM_WORLD, options);
  ASSERT_FALSE(AllRanks(comm.ok()));
  EXPECT_THAT(comm, IsInvalidArgument("execution backend 'cuda' is not enabled in this Kokkos"));
}

TEST(Execution, CudaPlacementNeedsCudaKokkos) {
  auto placement = CudaKernelsPlacement();
  if (IsAvailable(ExecBackend::kCuda)) {
    ASSERT_TRUE(placement.ok()) << placement.status();
    EXPECT_GE(placement->device, 0);
  } else {
    ASSERT_FALSE(placement.ok());
    EXPECT_THAT(placement.status().message(), HasSubstr("this Kokkos has no CUDA backend"));
  }
}

TEST(Execution, HostCollectivesStillRunAfterTheFactory) {
  // The factory's MPI transport still carries collectives, and Synchronize ends each one.
  auto comm = Communicator::Create(MPI_COMM_WORLD);
  ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
  const int n = testing::WorldSize();
  std::vector<int32_t> send(5, testing::WorldRank() + 1), recv(5, 0);
  const absl::Status s = (*comm)->AllReduce(send.data(), recv.data(), 5, DataType::kInt32, ReduceOp::kSum);
  ASSERT_TRUE(AllRanks(s.ok())) << s;
  for (int32_t v : recv) EXPECT_EQ(v, n * (n + 1) / 2);
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
