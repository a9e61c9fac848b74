// The CUDA IPC transport across MPI ranks of one node. Without a GPU, creating it must fail on every rank with the
// reason (checked here); the transfers, the stall timeout and the failure that spreads to the peers need a GPU for
// every rank (ranks may share one) and skip, saying why, when there is none.
#include "collectives/transport/cuda_ipc/cuda_ipc_transport.h"

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collectives/transport/cuda/cuda_errors.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/device_buffer.h"
#include "tests/gpu_test_env.h"
#include "tests/matchers.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace testing {
namespace {

TEST(CudaIpcCreate, WithoutAGpuEveryRankFailsWithTheReason) {
  if (AllRanks(CudaDeviceCount().ok())) GTEST_SKIP() << "every rank has a GPU: the GPU tests below cover creation";
  CudaIpcOptions options;
  options.timeout = absl::Seconds(20);
  auto transport = CudaIpcTransport::Create(MPI_COMM_WORLD, options);
  ASSERT_FALSE(AllRanks(transport.ok()));
  EXPECT_THAT(std::string(transport.status().message()), HasSubstr("failed on rank(s)"));
}

TEST(CudaIpcCreate, BadOptionsFailOnEveryRankByName) {
  CudaIpcOptions options;
  options.timeout = absl::ZeroDuration();
  auto zero = CudaIpcTransport::Create(MPI_COMM_WORLD, options);
  ASSERT_FALSE(AllRanks(zero.ok()));
  EXPECT_THAT(zero, IsInvalidArgument("cuda_ipc: timeout 0 is not positive"));
  options.timeout = absl::Seconds(20);
  options.shape.slots = 0;
  auto no_slots = CudaIpcTransport::Create(MPI_COMM_WORLD, options);
  ASSERT_FALSE(AllRanks(no_slots.ok()));
  EXPECT_THAT(no_slots, IsInvalidArgument("cuda_ipc: 0 slots of 1048576 B per channel carry nothing"));
}

class CudaIpcGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string reason;
    if (!testing::GpusForEveryRank(&reason, &device_, SharedGpu::kAllowed)) GTEST_SKIP() << reason;
    ASSERT_TRUE(CudaStatus(cudaSetDevice(device_), "cudaSetDevice").ok());
    ASSERT_TRUE(CudaStatus(cudaStreamCreate(&stream_), "cudaStreamCreate").ok());
  }
  void TearDown() override {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }

  // Small slots, so that the tests' messages take several chunks and wrap the rings.
  std::unique_ptr<CudaIpcTransport> MakeTransport(absl::Duration timeout = absl::Seconds(60)) {
    CudaIpcOptions options;
    options.device = device_;
    options.stream = stream_;
    options.timeout = timeout;
    options.shape = cuda_ipc::ChannelShape{2, 256};
    auto transport = CudaIpcTransport::Create(MPI_COMM_WORLD, options);
    EXPECT_TRUE(AllRanks(transport.ok())) << transport.status();
    return transport.ok() ? std::move(transport).value() : nullptr;
  }

  int device_ = 0;
  cudaStream_t stream_ = nullptr;
};

TEST_F(CudaIpcGpuTest, RingStepsOfManyChunksArriveInOrder) {
  auto transport = MakeTransport();
  ASSERT_NE(transport, nullptr);
  const int rank = WorldRank(), n = WorldSize();
  EXPECT_TRUE(transport->CanReach(MemoryKind::kDevice));
  EXPECT_FALSE(transport->CanReach(MemoryKind::kHost));
  EXPECT_TRUE(transport->StreamOrdered());
  transport->BeginCall(Transport::CallInfo{"all_gather", "ring", 7});
  // A ring AllGather of 1000 int32 per rank (15 chunks of 256 B through rings of 2): n-1 steps, one group each, no
  // host wait until Synchronize.
  constexpr size_t kCount = 1000, kBlock = kCount * sizeof(int32_t);
  DeviceBuffer all(kBlock * n);
  ASSERT_TRUE(all.status().ok()) << all.status();
  std::vector<char> mine(kBlock * n, 0);
  for (size_t i = 0; i < kCount; ++i) {
    const int32_t v = static_cast<int32_t>(rank * 100000 + i);
    std::memcpy(mine.data() + rank * kBlock + i * sizeof(v), &v, sizeof(v));
  }
  ASSERT_TRUE(all.Upload(mine).ok());
  char* base = static_cast<char*>(all.data());
  const int left = (rank + n - 1) % n, right = (rank + 1) % n;
  for (int s = 0; s < n - 1; ++s) {
    const int send_block = (rank - s + n) % n, recv_block = (rank - s - 1 + 2 * n) % n;
    ASSERT_TRUE(transport->Recv(left, base + recv_block * kBlock, kBlock, 0).ok());
    ASSERT_TRUE(transport->Send(right, base + send_block * kBlock, kBlock, 0).ok());
    ASSERT_TRUE(transport->WaitAll().ok());
  }
  const absl::Status done = transport->Synchronize();
  ASSERT_TRUE(AllRanks(done.ok())) << done;
  const std::vector<char> got = all.Download(kBlock * n);
  for (int r = 0; r < n; ++r) {
    for (size_t i = 0; i < kCount; i += 97) {
      int32_t v = 0;
      std::memcpy(&v, got.data() + r * kBlock + i * sizeof(v), sizeof(v));
      ASSERT_EQ(v, static_cast<int32_t>(r * 100000 + i)) << "block " << r << ", element " << i;
    }
  }
  EXPECT_THAT(transport->HeardFrom(), ::testing::ElementsAreArray(n > 1 ? std::vector<int>{left} : std::vector<int>{}));
  EXPECT_TRUE(AllRanks(transport->Quiesce(absl::Seconds(30)).ok()));
}

TEST_F(CudaIpcGpuTest, ZeroByteMessagesSynchronise) {
  auto transport = MakeTransport();
  ASSERT_NE(transport, nullptr);
  const int rank = WorldRank(), n = WorldSize();
  if (n < 2) GTEST_SKIP() << "needs a peer";
  ASSERT_TRUE(transport->Recv((rank + n - 1) % n, nullptr, 0, 0).ok());
  ASSERT_TRUE(transport->Send((rank + 1) % n, nullptr, 0, 0).ok());
  const absl::Status s = transport->Synchronize();
  EXPECT_TRUE(AllRanks(s.ok())) << s;
}

TEST_F(CudaIpcGpuTest, BadArgumentsAreRejectedBeforeTheStream) {
  auto transport = MakeTransport();
  ASSERT_NE(transport, nullptr);
  auto bad_peer = transport->Send(WorldSize(), nullptr, 0, 0);
  ASSERT_FALSE(bad_peer.ok());
  EXPECT_THAT(bad_peer.status().message(), HasSubstr(absl::StrCat("peer ", WorldSize(), " is not a rank")));
  auto self = transport->Send(WorldRank(), nullptr, 0, 0);
  ASSERT_FALSE(self.ok());
  EXPECT_THAT(self.status().message(), HasSubstr("is this rank"));
  auto null = transport->Recv(0, nullptr, 4, 0);
  ASSERT_FALSE(null.ok());
  EXPECT_THAT(null.status().message(), HasSubstr("null buffer for 4 bytes"));
  EXPECT_THAT(transport->Wait(Transport::Request{0}).message(), HasSubstr("request 0 is not pending"));
  EXPECT_TRUE(AllRanks(transport->Synchronize().ok()));
}

TEST_F(CudaIpcGpuTest, AStalledRankTimesOutAndItsPeerFailsNamingIt) {
  if (WorldSize() < 2) GTEST_SKIP() << "needs a peer that does not answer";
  // Rank 0 waits 3 s for a message rank 1 never sends; rank 1 waits (60 s) for one rank 0 never sends, and learns
  // from rank 0's flag that rank 0 failed, long before its own timeout.
  const int rank = WorldRank();
  auto transport = MakeTransport(rank == 0 ? absl::Seconds(3) : absl::Seconds(60));
  ASSERT_NE(transport, nullptr);
  DeviceBuffer buffer(4);
  ASSERT_TRUE(buffer.status().ok());
  if (rank <= 1) {
    const auto start = std::chrono::steady_clock::now();
    auto posted = transport->Recv(1 - rank, buffer.data(), 4, 0);
    ASSERT_TRUE(posted.ok()) << posted.status();
    absl::Status s = transport->WaitAll();
    if (s.ok()) s = transport->Synchronize();
    ASSERT_FALSE(s.ok());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (rank == 0) {
      EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
      EXPECT_THAT(s.message(), HasSubstr("CUDA IPC transport on rank 0"));
      EXPECT_THAT(s.message(), HasSubstr("rank 1 is 1 chunk(s) short of putting in this rank's receive of 4 B"));
    } else {
      EXPECT_EQ(s.code(), absl::StatusCode::kAborted) << s;
      EXPECT_THAT(s.message(), HasSubstr("rank 0's CUDA IPC transport failed"));
      EXPECT_LT(seconds, 30) << "rank 1 waited out its own timeout instead of seeing rank 0's flag";
    }
    // The transport is done: every later call says why.
    auto after = transport->Send(1 - rank, buffer.data(), 4, 0);
    ASSERT_FALSE(after.ok());
    EXPECT_THAT(after.status().message(), HasSubstr("transport failed"));
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
