// The NCCL transport and the NCCL peer collectives across MPI ranks. Without a GPU, creating the communicator must
// fail on every rank with the reason (checked here); the transfers, the stall timeout and the peer collectives need
// one GPU per rank and skip, saying why, when there is none.
#include "collectives/transport/nccl/nccl_transport.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/implementations/nccl_collectives.h"
#include "collectives/transport/cuda/cuda_errors.h"
#include "collectives/transport/nccl/nccl_bootstrap.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/collective_reference.h"
#include "tests/device_buffer.h"
#include "tests/gpu_test_env.h"
#include "tests/matchers.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace testing {
namespace {

TEST(NcclBootstrap, WithoutAGpuEveryRankFailsWithTheReason) {
  if (AllRanks(CudaDeviceCount().ok())) GTEST_SKIP() << "every rank has a GPU: the GPU tests below cover creation";
  NcclCommOptions options;
  options.device = 0;
  options.timeout = absl::Seconds(20);
  absl::StatusOr<ncclComm_t> comm = CreateNcclComm(MPI_COMM_WORLD, options);
  ASSERT_FALSE(AllRanks(comm.ok()));
  const std::string message(comm.status().message());
  // This machine has no GPU: cudaSetDevice fails on this rank, and the ranks agree on who failed.
  if (!CudaDeviceCount().ok()) {
    EXPECT_THAT(message, HasSubstr("cudaSetDevice(0) failed"));
    EXPECT_THAT(message, HasSubstr("[selecting the CUDA device failed on rank(s) "));
  }
  EXPECT_THAT(message, HasSubstr("failed on rank(s)"));
}

class NcclGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string reason;
    if (!testing::GpusForEveryRank(&reason, &device_, SharedGpu::kOnlyIfNcclAllows)) GTEST_SKIP() << reason;
    ASSERT_TRUE(CudaStatus(cudaSetDevice(device_), "cudaSetDevice").ok());
    ASSERT_TRUE(CudaStatus(cudaStreamCreate(&stream_), "cudaStreamCreate").ok());
    if (NcclMayShareGpus()) {
      // Ranks may share a GPU here: an NCCL that does not support it refuses at creation ("Duplicate GPU").
      NcclTransportOptions options;
      options.device = device_;
      options.stream = stream_;
      auto probe = NcclTransport::Create(MPI_COMM_WORLD, options);
      if (!AllRanks(probe.ok()) && NcclRefusedASharedGpu(probe.status())) {
        GTEST_SKIP() << "this NCCL refuses ranks that share a GPU: " << probe.status().message();
      }
    }
  }
  void TearDown() override {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }

  std::unique_ptr<NcclTransport> MakeTransport(absl::Duration timeout = absl::Seconds(60)) {
    NcclTransportOptions options;
    options.device = device_;
    options.stream = stream_;
    options.timeout = timeout;
    auto transport = NcclTransport::Create(MPI_COMM_WORLD, options);
    EXPECT_TRUE(AllRanks(transport.ok())) << transport.status();
    return transport.ok() ? std::move(transport).value() : nullptr;
  }

  int device_ = 0;
  cudaStream_t stream_ = nullptr;
};

TEST_F(NcclGpuTest, RingStepsAreOrderedOnTheStreamWithoutHostSynchronisation) {
  auto transport = MakeTransport();
  ASSERT_NE(transport, nullptr);
  const int rank = WorldRank(), n = WorldSize();
  EXPECT_EQ(transport->rank(), rank);
  EXPECT_EQ(transport->size(), n);
  EXPECT_TRUE(transport->CanReach(MemoryKind::kDevice));
  EXPECT_FALSE(transport->CanReach(MemoryKind::kHost));
  // A ring AllGather of one int64 per rank: n-1 steps, each one group, no host wait until Synchronize.
  DeviceBuffer slots(sizeof(int64_t) * n);
  ASSERT_TRUE(slots.status().ok()) << slots.status();
  std::vector<char> mine(sizeof(int64_t) * n, 0);
  const int64_t value = 1000 + 7 * rank;
  std::memcpy(mine.data() + rank * sizeof(int64_t), &value, sizeof(value));
  ASSERT_TRUE(slots.Upload(mine).ok());
  char* base = static_cast<char*>(slots.data());
  const int left = (rank + n - 1) % n, right = (rank + 1) % n;
  for (int s = 0; s < n - 1; ++s) {
    const int send_block = (rank - s + n) % n, recv_block = (rank - s - 1 + 2 * n) % n;
    ASSERT_TRUE(transport->Recv(left, base + recv_block * sizeof(int64_t), sizeof(int64_t), 0).ok());
    ASSERT_TRUE(transport->Send(right, base + send_block * sizeof(int64_t), sizeof(int64_t), 0).ok());
    ASSERT_TRUE(transport->WaitAll().ok());
  }
  EXPECT_EQ(transport->steps(), n - 1);
  const absl::Status done = transport->Synchronize();
  ASSERT_TRUE(AllRanks(done.ok())) << done;
  EXPECT_EQ(transport->collectives(), 1);
  const std::vector<char> all = slots.Download(sizeof(int64_t) * n);
  for (int r = 0; r < n; ++r) {
    int64_t got = 0;
    std::memcpy(&got, all.data() + r * sizeof(int64_t), sizeof(got));
    EXPECT_EQ(got, 1000 + 7 * r) << "slot " << r;
  }
}

TEST_F(NcclGpuTest, ZeroByteMessagesSynchronise) {
  auto transport = MakeTransport();
  ASSERT_NE(transport, nullptr);
  const int rank = WorldRank(), n = WorldSize();
  ASSERT_TRUE(transport->Recv((rank + n - 1) % n, nullptr, 0, 0).ok());
  ASSERT_TRUE(transport->Send((rank + 1) % n, nullptr, 0, 0).ok());
  const absl::Status s = transport->Synchronize();
  EXPECT_TRUE(AllRanks(s.ok())) << s;
}

TEST_F(NcclGpuTest, BadArgumentsAreRejectedBeforeNccl) {
  auto transport = MakeTransport();
  ASSERT_NE(transport, nullptr);
  auto bad_peer = transport->Send(WorldSize(), nullptr, 0, 0);
  ASSERT_FALSE(bad_peer.ok());
  EXPECT_THAT(bad_peer.status().message(), HasSubstr(absl::StrCat("peer ", WorldSize(), " is not a rank")));
  auto null = transport->Recv(0, nullptr, 4, 0);
  ASSERT_FALSE(null.ok());
  EXPECT_THAT(null.status().message(), HasSubstr("null buffer for 4 bytes"));
  EXPECT_THAT(transport->Wait(Transport::Request{0}).message(), HasSubstr("request 0 is not pending"));
  EXPECT_TRUE(AllRanks(transport->Synchronize().ok()));
}

TEST_F(NcclGpuTest, AStalledStepTimesOutAbortsAndNamesTheStep) {
  if (WorldSize() < 2) GTEST_SKIP() << "needs a peer that does not answer";
  auto transport = MakeTransport(absl::Seconds(3));
  ASSERT_NE(transport, nullptr);
  DeviceBuffer buffer(4);
  ASSERT_TRUE(buffer.status().ok());
  absl::Status s;
  if (WorldRank() == 0) {
    // Rank 1 never posts the matching receive.
    auto posted = transport->Send(1, buffer.data(), 4, 0);
    ASSERT_TRUE(posted.ok()) << posted.status();
    s = transport->WaitAll();
    if (s.ok()) s = transport->Synchronize();
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
    EXPECT_THAT(s.message(), HasSubstr("NCCL transport on rank 0"));
    EXPECT_THAT(s.message(), HasSubstr("collective (no call) #0, step 0 (send 4 B to 1)"));
    // The communicator is gone: every later call says why.
    auto after = transport->Send(1, buffer.data(), 4, 0);
    ASSERT_FALSE(after.ok());
    EXPECT_THAT(after.status().message(), HasSubstr("communicator aborted"));
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST_F(NcclGpuTest, PeerCollectivesMatchTheReference) {
  NcclCommOptions options;
  options.device = device_;
  options.timeout = absl::Seconds(60);
  options.nonblocking = false;  // the peer rows drive NCCL as nccl-tests does
  absl::StatusOr<ncclComm_t> comm = CreateNcclComm(MPI_COMM_WORLD, options);
  ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
  const int rank = WorldRank(), n = WorldSize();
  const int root = n - 1;
  bool ok = true;
  for (Collective c : AllCollectives()) {
    if (c == Collective::kBarrier) continue;
    for (DataType type : {DataType::kFloat32, DataType::kInt8, DataType::kBfloat16}) {
      for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMax}) {
        if (!testing::IsReduction(c) && op != ReduceOp::kSum) continue;
        for (size_t count : {size_t{1}, size_t{1031}}) {
          const std::vector<char> send = testing::SendBuffer(c, type, op, count, root, rank, n);
          const std::vector<char> want = testing::ExpectedRecv(c, type, op, count, root, rank, n);
          DeviceBuffer d_send(send.size()), d_recv(want.size());
          ASSERT_TRUE(d_send.Upload(send).ok());
          const absl::Status s =
              RunNcclCollective(c, d_send.data(), d_recv.data(), count, type, op, root, *comm, stream_);
          ASSERT_TRUE(s.ok()) << s;
          ASSERT_TRUE(CudaStatus(cudaStreamSynchronize(stream_), "cudaStreamSynchronize").ok());
          const std::vector<char> got = d_recv.Download(want.size());
          if (got != want) {
            ok = false;
            ADD_FAILURE() << "nccl " << CollectiveName(c) << " " << DataTypeName(type) << " " << ReduceOpName(op)
                          << " count " << count << " differs from the reference";
          }
        }
      }
    }
  }
  EXPECT_TRUE(AllRanks(ok));
  DeviceBuffer d(1024 * 4);
  auto seconds = TimeNcclCollective(Collective::kAllReduce, d.data(), d.data(), 1024, DataType::kFloat32,
                                    ReduceOp::kSum, 0, *comm, stream_, 5);
  ASSERT_TRUE(seconds.ok()) << seconds.status();
  EXPECT_GT(*seconds, 0.0);
  const absl::Status barrier = RunNcclCollective(Collective::kBarrier, nullptr, nullptr, 0, DataType::kFloat32,
                                                 ReduceOp::kSum, 0, *comm, stream_);
  EXPECT_THAT(barrier.message(), HasSubstr("NCCL has no barrier"));
  ncclCommDestroy(*comm);
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
