// StagingTransport over the MPI transport, with host memory standing in for device memory: the ring AllReduce runs
// through it unchanged and is exact, MPI only ever sees the staging buffers, every transfer is copied once each way,
// the pinned pool is reused across collectives, and errors leave the pool usable.
#include "collectives/transport/staging_transport.h"

#include <mpi.h>

#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/topology.h"
#include "collectives/algorithms/registry.h"
#include "collectives/kernels/backend.h"
#include "collectives/transport/mpi/mpi_transport.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/exact_values.h"
#include "tests/matchers.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace testing {
namespace {

// What the staging did, shared between the test, the staging and the recording transport.
struct Ledger {
  std::vector<std::pair<const char*, size_t>> allocations;
  int to_host = 0;
  int to_device = 0;
  int finishes = 0;
  int foreign_pointers = 0;  // buffers handed to MPI that are not staging buffers
  int null_zero_byte = 0;    // zero-byte transfers passed on without a buffer

  bool IsStaging(const void* p, size_t bytes) const {
    const char* c = static_cast<const char*>(p);
    for (const auto& [base, size] : allocations) {
      if (c >= base && c + bytes <= base + size) return true;
    }
    return false;
  }
};

// Host memory standing in for pinned memory and for the device.
class HostStaging final : public kcoll::HostStaging {
 public:
  explicit HostStaging(Ledger* ledger) : ledger_(ledger) {}
  absl::StatusOr<void*> AllocateHost(size_t bytes) override {
    char* p = new char[bytes];
    ledger_->allocations.emplace_back(p, bytes);
    return static_cast<void*>(p);
  }
  void FreeHost(void* host) override { delete[] static_cast<char*>(host); }
  absl::Status ToHost(void* host, const void* device, size_t bytes) override {
    ++ledger_->to_host;
    std::memcpy(host, device, bytes);
    return absl::OkStatus();
  }
  absl::Status ToDevice(void* device, const void* host, size_t bytes) override {
    ++ledger_->to_device;
    std::memcpy(device, host, bytes);
    return absl::OkStatus();
  }
  absl::Status Finish() override {
    ++ledger_->finishes;
    return absl::OkStatus();
  }

 private:
  Ledger* ledger_;
};

// Passes everything to MPI, noting buffers that did not come from the staging pool.
class RecordingTransport final : public Transport {
 public:
  RecordingTransport(std::unique_ptr<Transport> inner, Ledger* ledger) : inner_(std::move(inner)), ledger_(ledger) {}
  absl::string_view name() const override { return inner_->name(); }
  int rank() const override { return inner_->rank(); }
  int size() const override { return inner_->size(); }
  bool CanReach(MemoryKind memory) const override { return inner_->CanReach(memory); }
  absl::StatusOr<Request> Send(int peer, const void* data, size_t bytes, int tag) override {
    Note(data, bytes);
    return inner_->Send(peer, data, bytes, tag);
  }
  absl::StatusOr<Request> Recv(int peer, void* data, size_t bytes, int tag) override {
    Note(data, bytes);
    return inner_->Recv(peer, data, bytes, tag);
  }
  absl::Status Wait(Request request) override { return inner_->Wait(request); }
  absl::Status WaitAll() override { return inner_->WaitAll(); }
  absl::Status Synchronize() override { return inner_->Synchronize(); }

 private:
  void Note(const void* data, size_t bytes) {
    if (bytes == 0) {
      if (data == nullptr) ++ledger_->null_zero_byte;
    } else if (!ledger_->IsStaging(data, bytes)) {
      ++ledger_->foreign_pointers;
    }
  }
  std::unique_ptr<Transport> inner_;
  Ledger* ledger_;
};

class StagingTransportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto mpi = MpiTransport::Create(MPI_COMM_WORLD);
    ASSERT_TRUE(mpi.ok()) << mpi.status();
    auto recording = std::make_unique<RecordingTransport>(std::move(mpi).value(), &ledger_);
    staging_ = std::make_unique<StagingTransport>(std::move(recording), std::make_unique<HostStaging>(&ledger_));
    auto kernels = MakeKernels(ExecBackend::kSerial);
    ASSERT_TRUE(kernels.ok()) << kernels.status();
    kernels_ = std::move(kernels).value();
    topology_ = MakeEmulatedTopology(WorldRank(), WorldSize(), WorldSize());
  }

  // Ring AllReduce (sum, prod, min or max) through the staging transport; returns whether the result is exact.
  bool RunAllReduce(DataType type, ReduceOp op, size_t count) {
    const size_t elem = DataTypeSize(type);
    std::vector<char> send(count * elem), recv(count * elem);
    for (size_t i = 0; i < count; ++i) EncodeAt(type, send.data(), i, ExactInput(type, op, WorldRank(), i));
    Resources res{*staging_, *kernels_, topology_};
    CollectiveArgs args;
    args.send = send.data();
    args.recv = recv.data();
    args.count = count;
    args.type = type;
    args.op = op;
    absl::Status s = FindAlgorithm(Collective::kAllReduce, Algorithm::kRing).value()(args, res);
    if (s.ok()) s = staging_->Synchronize();
    EXPECT_TRUE(s.ok()) << s;
    std::vector<char> want(elem);
    for (size_t i = 0; i < count; ++i) {
      EncodeAt(type, want.data(), 0, ExactReduction(type, op, WorldSize(), i));
      if (std::memcmp(want.data(), recv.data() + i * elem, elem) != 0) {
        ADD_FAILURE() << DataTypeName(type) << " " << ReduceOpName(op) << " count " << count << ": element " << i;
        return false;
      }
    }
    return s.ok();
  }

  Ledger ledger_;
  std::unique_ptr<StagingTransport> staging_;
  std::unique_ptr<Kernels> kernels_;
  Topology topology_;
};

TEST_F(StagingTransportTest, RingAllReduceIsExactAndMpiSeesOnlyStagingBuffers) {
  const size_t n = static_cast<size_t>(WorldSize());
  bool ok = true;
  for (DataType type : {DataType::kInt32, DataType::kFloat16, DataType::kFloat64, DataType::kUint8}) {
    for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMax, ReduceOp::kProd}) {
      for (size_t count : {size_t{1}, n + 1, size_t{10007}}) ok = RunAllReduce(type, op, count) && ok;
    }
  }
  ASSERT_TRUE(AllRanks(ok));
  EXPECT_EQ(ledger_.foreign_pointers, 0);
  EXPECT_TRUE(staging_->CanReach(MemoryKind::kDevice));
  EXPECT_EQ(staging_->name(), "mpi");
}

TEST_F(StagingTransportTest, EachTransferIsCopiedOnceEachWay) {
  const int n = WorldSize();
  const size_t count = static_cast<size_t>(n) * 4;  // every ring block non-empty
  ASSERT_TRUE(AllRanks(RunAllReduce(DataType::kInt64, ReduceOp::kSum, count)));
  // Ring AllReduce: n-1 ReduceScatter steps and n-1 AllGather steps, one send and one receive each.
  EXPECT_EQ(ledger_.to_host, 2 * (n - 1));
  EXPECT_EQ(ledger_.to_device, 2 * (n - 1));
}

TEST_F(StagingTransportTest, PinnedPoolIsReusedAcrossCollectives) {
  ASSERT_TRUE(AllRanks(RunAllReduce(DataType::kFloat32, ReduceOp::kSum, 300000)));
  const size_t allocations = ledger_.allocations.size();
  const size_t pinned = staging_->pinned_bytes();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(AllRanks(RunAllReduce(DataType::kFloat32, ReduceOp::kSum, 300000)));
  EXPECT_EQ(ledger_.allocations.size(), allocations);
  EXPECT_EQ(staging_->pinned_bytes(), pinned);
  // A ring step holds one send and one receive buffer at a time.
  if (WorldSize() > 1) {
    EXPECT_LE(allocations, 2u);
  }
}

TEST_F(StagingTransportTest, WaitOnOneReceiveDeliversItToTheDevice) {
  const int rank = WorldRank(), n = WorldSize();
  const int right = (rank + 1) % n, left = (rank + n - 1) % n;
  int64_t out = 1000 + rank, in = -1;
  auto recv = staging_->Recv(left, &in, sizeof(in), 7);
  auto send = staging_->Send(right, &out, sizeof(out), 7);
  ASSERT_TRUE(recv.ok() && send.ok());
  ASSERT_TRUE(staging_->Wait(*recv).ok());
  EXPECT_EQ(in, 1000 + left);
  ASSERT_TRUE(staging_->Wait(*recv).ok());  // waiting again is harmless
  ASSERT_TRUE(staging_->WaitAll().ok());
  EXPECT_EQ(ledger_.to_device, 1);
}

TEST_F(StagingTransportTest, ZeroByteTransfersNeedNoBuffer) {
  const int rank = WorldRank(), n = WorldSize();
  ASSERT_TRUE(staging_->Recv((rank + n - 1) % n, nullptr, 0, 0).ok());
  ASSERT_TRUE(staging_->Send((rank + 1) % n, nullptr, 0, 0).ok());
  ASSERT_TRUE(staging_->WaitAll().ok());
  EXPECT_EQ(ledger_.null_zero_byte, 2);
  EXPECT_TRUE(ledger_.allocations.empty());
}

TEST_F(StagingTransportTest, ErrorsLeaveThePoolUsable) {
  int64_t value = 5;
  auto bad = staging_->Send(WorldSize(), &value, sizeof(value), 0);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("peer"));
  auto null = staging_->Recv(0, nullptr, 8, 0);
  ASSERT_FALSE(null.ok());
  EXPECT_THAT(null, IsInvalidArgument("null buffer for 8 bytes"));
  const absl::Status wait = staging_->Wait(Transport::Request{3});
  EXPECT_THAT(wait, IsInvalidArgument("request 3 is not pending"));
  // The failed send's buffer went back to the pool: a full collective still works and allocates at most a second one.
  ASSERT_TRUE(AllRanks(RunAllReduce(DataType::kInt32, ReduceOp::kSum, 17)));
  EXPECT_LE(ledger_.allocations.size(), 2u);
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
