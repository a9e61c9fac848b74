// Every registered algorithm of every collective through the public Communicator on GPU buffers: over NCCL and over
// CUDA IPC (kernels and transfers ordered on one stream; ranks may share a GPU over CUDA IPC), over CUDA IPC within
// emulated nodes of 2 ranks and staged MPI between them (4 ranks), and over MPI with pinned-host staging (and
// directly, when the MPI is CUDA-aware). Results are compared bit for bit with the host
// reference. Needs a CUDA-enabled Kokkos
// (--config=cuda) and a GPU for every rank (ranks may share one over MPI; over NCCL only where
// NCCL_MULTI_RANK_GPU_ENABLE=1 lets them); otherwise every test skips and says which is missing.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collectives/algorithms/registry.h"
#include "collectives/communicator.h"
#include "collectives/kernels/backend.h"
#include "collectives/transport/mpi/mpi_cuda_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/collective_reference.h"
#include "tests/device_buffer.h"
#include "tests/gpu_test_env.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace testing {
namespace {

struct GpuConfig {
  std::string name;
  TransportKind transport;
  bool mpi_cuda_aware;
  int ranks_per_node = 0;  // emulated nodes of this many ranks (0: the nodes MPI reports)
};

std::vector<GpuConfig> Configs() {
  std::vector<GpuConfig> out = {{"nccl", TransportKind::kNccl, false},
                                {"cuda_ipc", TransportKind::kCudaIpc, false},
                                {"mpi_staged", TransportKind::kMpi, false}};
  out.push_back({"mpi_cuda_aware", TransportKind::kMpi, true});
  // CUDA IPC within emulated nodes of 2 ranks, MPI (staged) between them: the hierarchical route.
  out.push_back({"cuda_ipc_2pernode", TransportKind::kCudaIpc, false, 2});
  return out;
}

// What an algorithm that cannot run on device buffers names when it refuses them: those that need registered buffers
// (Communicator::Allocate), host buffers in a node's shared memory (the inline AllReduce), or host buffers (MPI's own
// collective, the vendor path). Empty for the algorithms that run on any device buffer.
std::string DeviceRefusal(Algorithm algorithm) {
  switch (FactsOf(algorithm).needs) {
    case AlgorithmNeeds::kRegisteredBuffers:
      return "Communicator::Allocate";
    case AlgorithmNeeds::kOneNodeShm:
      return "on host buffers";
    case AlgorithmNeeds::kVendorMpi:
      return "runs on host buffers";
    default:
      return "";
  }
}
bool RunsOnPlainBuffers(Algorithm algorithm) { return DeviceRefusal(algorithm).empty(); }

class GpuCollectivesTest : public ::testing::TestWithParam<GpuConfig> {
 protected:
  void SetUp() override {
    if (!IsAvailable(ExecBackend::kCuda)) {
      GTEST_SKIP() << "no CUDA device: this Kokkos has no CUDA backend (build with --config=cuda, docs/gpu.md)";
    }
    const GpuConfig& config = GetParam();
    std::string reason;
    int device = 0;
    const SharedGpu shared =
        config.transport == TransportKind::kNccl ? SharedGpu::kOnlyIfNcclAllows : SharedGpu::kAllowed;
    if (!testing::GpusForEveryRank(&reason, &device, shared)) GTEST_SKIP() << reason;
    if (config.transport == TransportKind::kMpi && config.mpi_cuda_aware && !DetectMpiCudaSupport().aware) {
      GTEST_SKIP() << "this MPI is not CUDA-aware (" << DetectMpiCudaSupport().how << ")";
    }
    if (config.ranks_per_node > 0 && (WorldSize() <= config.ranks_per_node || WorldSize() % config.ranks_per_node)) {
      GTEST_SKIP() << "nodes of " << config.ranks_per_node << " ranks need a multiple of " << config.ranks_per_node
                   << " ranks above " << config.ranks_per_node << " (this run has " << WorldSize() << ")";
    }
    CommunicatorOptions options;
    options.backend = ExecBackend::kCuda;
    options.transport = config.transport;
    options.ranks_per_node = config.ranks_per_node;
    options.gpu.mpi_cuda_aware = config.mpi_cuda_aware;
    options.timeout = absl::Seconds(120);
    auto comm = Communicator::Create(MPI_COMM_WORLD, options);
    if (!AllRanks(comm.ok()) && NcclRefusedASharedGpu(comm.status())) {
      GTEST_SKIP() << "this NCCL refuses ranks that share a GPU: " << comm.status().message();
    }
    ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
    comm_ = std::move(comm).value();
    if (WorldRank() == 0) std::printf("[kcoll] %s\n", comm_->execution().c_str());
  }

  std::unique_ptr<Communicator> comm_;
};

TEST_P(GpuCollectivesTest, EveryAlgorithmMatchesTheReference) {
  const int rank = WorldRank(), n = WorldSize();
  const int root = n - 1;
  int runs = 0;
  for (Collective c : AllCollectives()) {
    for (Algorithm algorithm : AlgorithmsFor(c)) {
      CallOptions call;
      call.algorithm = algorithm;
      if (!RunsOnPlainBuffers(algorithm)) {
        DeviceBuffer d_send(64), d_recv(64 * n);
        const absl::Status s = comm_->Call(c, d_send.data(), d_recv.data(), 16, DataType::kFloat32, ReduceOp::kSum, 0,
                                           call, MemoryKind::kDevice);
        EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << AlgorithmName(algorithm) << ": " << s;
        EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr(DeviceRefusal(algorithm)));
        continue;
      }
      if (c == Collective::kBarrier) {
        const absl::Status s =
            comm_->Call(c, nullptr, nullptr, 0, DataType::kUint8, ReduceOp::kSum, 0, call, MemoryKind::kDevice);
        ASSERT_TRUE(AllRanks(s.ok())) << AlgorithmName(algorithm) << " barrier: " << s;
        continue;
      }
      for (DataType type : {DataType::kFloat32, DataType::kInt32, DataType::kFloat16, DataType::kBfloat16}) {
        for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMin, ReduceOp::kProd, ReduceOp::kAvg}) {
          if (!testing::IsReduction(c) && op != ReduceOp::kSum) continue;
          for (size_t count : {size_t{0}, size_t{1}, static_cast<size_t>(n) + 1, size_t{65537}}) {
            const std::vector<char> send = testing::SendBuffer(c, type, op, count, root, rank, n);
            const std::vector<char> want = testing::ExpectedRecv(c, type, op, count, root, rank, n);
            DeviceBuffer d_send(send.size()), d_recv(want.size());
            ASSERT_TRUE(d_send.status().ok() && d_recv.status().ok()) << d_send.status() << d_recv.status();
            ASSERT_TRUE(d_send.Upload(send).ok());
            ASSERT_TRUE(d_recv.Fill(0x5a).ok());  // garbage the collective must overwrite
            const absl::Status s =
                comm_->Call(c, d_send.data(), d_recv.data(), count, type, op, root, call, MemoryKind::kDevice);
            const std::string what = absl::StrCat(CollectiveName(c), "/", AlgorithmName(algorithm), " ",
                                                  DataTypeName(type), " ", ReduceOpName(op), " count ", count);
            ASSERT_TRUE(AllRanks(s.ok())) << what << ": " << s;
            // The collective returned: its result is in place (the transport synchronised its stream).
            const std::vector<char> got = d_recv.Download(want.size());
            ASSERT_TRUE(AllRanks(got == want)) << what << ": differs from the reference on some rank";
            ++runs;
          }
        }
      }
    }
  }
  EXPECT_GT(runs, 0);
}

// In place (NCCL's offsets: AllGather and Gather send from block `rank` of the receive buffer, ReduceScatter and
// Scatter receive into block `rank` of the send buffer) and out of place, at a size whose messages are far above
// MPI's eager limit and NCCL's chunks (4 MiB of int32), roots first and last.
TEST_P(GpuCollectivesTest, InPlaceAndLargeMessagesMatchTheReference) {
  const int rank = WorldRank(), n = WorldSize();
  const DataType type = DataType::kInt32;
  const ReduceOp op = ReduceOp::kSum;
  const size_t count = (size_t{1} << 20) + 3, elem = DataTypeSize(type), block = count * elem;
  for (Collective c : AllCollectives()) {
    if (c == Collective::kBarrier) continue;
    const std::vector<int> roots = IsRooted(c) ? std::vector<int>{0, n - 1} : std::vector<int>{0};
    for (Algorithm algorithm : AlgorithmsFor(c)) {
      if (!RunsOnPlainBuffers(algorithm)) continue;  // EveryAlgorithmMatchesTheReference checks their refusal
      for (int root : roots) {
        for (bool in_place : {false, true}) {
          CallOptions call;
          call.algorithm = algorithm;
          const std::vector<char> input = testing::SendBuffer(c, type, op, count, root, rank, n);
          const std::vector<char> want = testing::ExpectedRecv(c, type, op, count, root, rank, n);
          const size_t recv_elems = testing::RecvElements(c, count, root, rank, n);
          // One device buffer holding both in place; two out of place.
          const size_t span = std::max<size_t>(count * n, std::max(input.size() / elem, recv_elems)) * elem;
          std::vector<char> host(span, 0x5a);
          size_t send_at = 0, recv_at = 0;
          if (c == Collective::kAllGather || c == Collective::kGather) send_at = rank * block;
          if (c == Collective::kReduceScatter || c == Collective::kScatter) recv_at = rank * block;
          if (in_place && !input.empty()) std::memcpy(host.data() + send_at, input.data(), input.size());
          DeviceBuffer d_one(span), d_send(input.size()), d_recv(recv_elems * elem);
          ASSERT_TRUE(d_one.status().ok() && d_send.status().ok() && d_recv.status().ok());
          ASSERT_TRUE(d_one.Upload(host).ok());
          ASSERT_TRUE(d_send.Upload(input).ok());
          ASSERT_TRUE(d_recv.Fill(0x5a).ok());
          char* one = static_cast<char*>(d_one.data());
          const void* send = in_place ? one + send_at : d_send.data();
          void* recv = in_place ? one + recv_at : d_recv.data();
          const absl::Status s = comm_->Call(c, send, recv, count, type, op, root, call, MemoryKind::kDevice);
          const std::string what = absl::StrCat(CollectiveName(c), "/", AlgorithmName(algorithm), " root ", root,
                                                in_place ? " in place" : " out of place", " count ", count);
          ASSERT_TRUE(AllRanks(s.ok())) << what << ": " << s;
          std::vector<char> got;
          if (in_place) {
            const std::vector<char> all = d_one.Download(span);
            got.assign(all.begin() + recv_at, all.begin() + recv_at + want.size());
          } else {
            got = d_recv.Download(want.size());
          }
          ASSERT_TRUE(AllRanks(got == want)) << what << ": differs from the reference on some rank";
        }
      }
    }
  }
}

// Registered device buffers (Communicator::Allocate with CUDA kernels: each rank's part on its GPU, opened by the
// others through CUDA IPC): `direct` reads the peers' buffers in place with no transfer, out of place and in place,
// and `auto` takes it from kAutoDirectMinBytes; results bit for bit against the reference. A plain device buffer on one
// rank makes `auto` go through transfers and `direct` refuse; Free of memory Allocate did not return is refused.
TEST_P(GpuCollectivesTest, RegisteredDeviceBuffersRunDirect) {
  const int rank = WorldRank(), n = WorldSize();
  ASSERT_EQ(comm_->registered_memory(), MemoryKind::kDevice);
  if (GetParam().ranks_per_node > 0) {
    EXPECT_FALSE(comm_->CanRunZeroCopy());
    GTEST_SKIP() << "ranks on several nodes: registered buffers run through transfers there";
  }
  ASSERT_TRUE(comm_->CanRunZeroCopy());
  const DataType type = DataType::kInt32;
  const size_t largest = (size_t{1} << 20) + 3, elem = DataTypeSize(type);
  absl::StatusOr<void*> send = comm_->Allocate(largest * n * elem);
  absl::StatusOr<void*> recv = comm_->Allocate(largest * n * elem);
  ASSERT_TRUE(AllRanks(send.ok() && recv.ok())) << send.status() << recv.status();
  cudaPointerAttributes attributes{};
  ASSERT_EQ(cudaPointerGetAttributes(&attributes, *send), cudaSuccess);
  EXPECT_EQ(attributes.type, cudaMemoryTypeDevice);
  EXPECT_TRUE(comm_->IsRegistered(*send, largest * n * elem));
  auto upload = [](void* to, const std::vector<char>& from) {
    return from.empty() ? cudaSuccess : cudaMemcpy(to, from.data(), from.size(), cudaMemcpyHostToDevice);
  };
  for (Collective c :
       {Collective::kAllReduce, Collective::kReduceScatter, Collective::kAllGather, Collective::kBroadcast}) {
    for (Algorithm algorithm : {Algorithm::kDirect, Algorithm::kAuto}) {
      for (size_t count : {size_t{1}, static_cast<size_t>(n) + 1, size_t{65537}, largest}) {
        for (bool in_place : {false, true}) {
          if (in_place && (c == Collective::kReduceScatter || c == Collective::kAllGather)) continue;
          const int root = n - 1;
          const std::vector<char> input = testing::SendBuffer(c, type, ReduceOp::kSum, count, root, rank, n);
          const std::vector<char> want = testing::ExpectedRecv(c, type, ReduceOp::kSum, count, root, rank, n);
          void* into = in_place ? *recv : *send;
          ASSERT_EQ(cudaMemset(*recv, 0x5a, largest * n * elem), cudaSuccess);
          ASSERT_EQ(upload(into, input), cudaSuccess);
          CallOptions call;
          call.algorithm = algorithm;
          const PrimitiveCounts before = comm_->counters().total;
          const absl::Status s =
              comm_->Call(c, into, *recv, count, type, ReduceOp::kSum, root, call, MemoryKind::kDevice);
          const std::string what = absl::StrCat(CollectiveName(c), "/", AlgorithmName(algorithm), " count ", count,
                                                in_place ? " in place" : " out of place");
          ASSERT_TRUE(AllRanks(s.ok())) << what << ": " << s;
          if (algorithm == Algorithm::kDirect) {
            EXPECT_EQ(comm_->counters().total.send.calls, before.send.calls) << what << ": direct made transfers";
          }
          std::vector<char> got(want.size());
          if (!got.empty()) {
            ASSERT_EQ(cudaMemcpy(got.data(), *recv, got.size(), cudaMemcpyDeviceToHost), cudaSuccess);
          }
          ASSERT_TRUE(AllRanks(got == want)) << what << ": differs from the reference on some rank";
        }
      }
    }
  }
  // One rank's buffer not registered: `auto` runs through transfers on every rank, `direct` refuses on every rank.
  {
    const size_t count = 65537;
    const std::vector<char> input =
        testing::SendBuffer(Collective::kAllReduce, type, ReduceOp::kSum, count, 0, rank, n);
    const std::vector<char> want =
        testing::ExpectedRecv(Collective::kAllReduce, type, ReduceOp::kSum, count, 0, rank, n);
    DeviceBuffer plain(input.size());
    ASSERT_TRUE(plain.Upload(input).ok());
    ASSERT_EQ(upload(*send, input), cudaSuccess);
    const void* from = rank == n - 1 ? plain.data() : *send;
    const absl::Status automatic =
        comm_->Call(Collective::kAllReduce, from, *recv, count, type, ReduceOp::kSum, 0, {}, MemoryKind::kDevice);
    ASSERT_TRUE(AllRanks(automatic.ok())) << automatic;
    std::vector<char> got(want.size());
    ASSERT_EQ(cudaMemcpy(got.data(), *recv, got.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_TRUE(AllRanks(got == want)) << "auto with one plain device buffer";
    CallOptions direct;
    direct.algorithm = Algorithm::kDirect;
    const absl::Status refused =
        comm_->Call(Collective::kAllReduce, from, *recv, count, type, ReduceOp::kSum, 0, direct, MemoryKind::kDevice);
    EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition) << refused;
    EXPECT_THAT(std::string(refused.message()), ::testing::HasSubstr("not registered"));
  }
  DeviceBuffer stranger(64);
  const absl::Status not_ours = comm_->Free(stranger.data());
  EXPECT_EQ(not_ours.code(), absl::StatusCode::kInvalidArgument) << not_ours;
  EXPECT_TRUE(AllRanks(comm_->Free(*send).ok() && comm_->Free(*recv).ok()));
}

// Nonblocking calls on device buffers, all in flight at once and completed by polling Test: over NCCL they are
// stream-ordered (the I-call enqueues, Test asks the stream), over MPI they run as the communicator's progress says.
TEST_P(GpuCollectivesTest, NonblockingCallsInFlightMatchTheReference) {
  const int rank = WorldRank(), n = WorldSize();
  if (MovesDeviceMemoryOnly(GetParam().transport)) {
    EXPECT_EQ(comm_->progress().rfind("stream", 0), 0u) << comm_->progress();
  }
  struct InFlight {
    std::string what;
    std::vector<char> want;
    std::unique_ptr<DeviceBuffer> send, recv;
    Request request;
    bool done = false;
  };
  std::vector<InFlight> calls;
  for (Collective c : {Collective::kAllReduce, Collective::kAllGather, Collective::kBroadcast,
                       Collective::kReduceScatter, Collective::kAllToAll, Collective::kReduce}) {
    for (DataType type : {DataType::kFloat32, DataType::kInt32}) {
      for (size_t count : {size_t{1}, size_t{65537}}) {
        const int root = static_cast<int>(count % static_cast<size_t>(n));
        const std::vector<char> send = testing::SendBuffer(c, type, ReduceOp::kSum, count, root, rank, n);
        InFlight call;
        call.what = absl::StrCat(CollectiveName(c), " ", DataTypeName(type), " count ", count);
        call.want = testing::ExpectedRecv(c, type, ReduceOp::kSum, count, root, rank, n);
        call.send = std::make_unique<DeviceBuffer>(send.size());
        call.recv = std::make_unique<DeviceBuffer>(call.want.size());
        ASSERT_TRUE(call.send->Upload(send).ok());
        ASSERT_TRUE(call.recv->Fill(0x5a).ok());
        call.request = comm_->ICall(c, call.send->data(), call.recv->data(), count, type, ReduceOp::kSum, root, {},
                                    MemoryKind::kDevice);
        calls.push_back(std::move(call));
      }
    }
  }
  size_t left = calls.size();
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (left > 0 && std::chrono::steady_clock::now() < give_up) {
    for (size_t i = calls.size(); i-- > 0;) {  // the latest first: a later call completes no earlier
      if (calls[i].done) continue;
      absl::StatusOr<bool> done = calls[i].request.Test();
      ASSERT_TRUE(done.ok()) << calls[i].what << ": " << done.status();
      if (!*done) continue;
      calls[i].done = true;
      --left;
      ASSERT_TRUE(calls[i].request.Wait().ok()) << calls[i].what;
      EXPECT_TRUE(calls[i].recv->Download(calls[i].want.size()) == calls[i].want) << calls[i].what;
    }
  }
  EXPECT_EQ(left, 0u);
  ASSERT_TRUE(AllRanks(!HasFailure()));
}

INSTANTIATE_TEST_SUITE_P(Transports, GpuCollectivesTest, ::testing::ValuesIn(Configs()),
                         [](const ::testing::TestParamInfo<GpuConfig>& info) { return info.param.name; });

}  // namespace
}  // namespace testing
}  // namespace kcoll
