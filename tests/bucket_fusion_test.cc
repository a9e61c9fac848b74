// BucketedAllReduce: many tensors (zero-size ones, one larger than a bucket, some in place) packed into small
// buckets, one AllReduce per bucket. Each tensor's result is compared bit for bit with the exact reduction and with
// MPI_Allreduce of the same inputs; the number of buckets with ceil(total bytes / bucket bytes); the packing with the
// communicator's kernels (device copies on a GPU communicator), seen in its counters.
#include "collectives/bucket_fusion.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "tests/collective_test_util.h"
#include "tests/matchers.h"
#include "tests/mpi_reference.h"

namespace kcoll {
namespace testing {
namespace {

// Element counts of the tensors: zero-size ones, single elements, one spanning many 256-byte buckets.
const std::vector<size_t> kCounts = {0, 5, 1000, 0, 1, 37, 300, 0, 64, 3};

class BucketFusionTest : public ::testing::Test {
 protected:
  void SetUp() override { comm_ = MakeCommunicator(ExecBackend::kSerial); }

  // Reduces kCounts-sized tensors whose element j (counting across all tensors) is ExactInput(j); every third
  // tensor in place. Returns the stats.
  BucketStats Check(DataType type, ReduceOp op, size_t bucket_bytes) {
    const int rank = WorldRank(), n = WorldSize();
    const size_t elem = DataTypeSize(type);
    size_t total = 0;
    for (size_t c : kCounts) total += c;
    std::vector<std::vector<char>> sends, recvs;
    std::vector<FusionTensor> tensors;
    std::vector<size_t> first;  // position of each tensor's element 0 in the whole stream
    size_t at = 0;
    for (size_t t = 0; t < kCounts.size(); ++t) {
      sends.push_back(MakeBuffer(type, kCounts[t], [&](size_t i) { return ExactInput(type, op, rank, at + i); }));
      recvs.push_back(SentinelBuffer(type, kCounts[t]));
      first.push_back(at);
      at += kCounts[t];
    }
    for (size_t t = 0; t < kCounts.size(); ++t) {
      const bool in_place = t % 3 == 0;
      tensors.push_back({sends[t].data(), in_place ? sends[t].data() : recvs[t].data(), kCounts[t]});
    }
    BucketOptions options;
    options.bucket_bytes = bucket_bytes;
    const std::string what = absl::StrCat(DataTypeName(type), " ", ReduceOpName(op), " bucket_bytes=", bucket_bytes);

    comm_->ResetCounters();
    auto stats = BucketedAllReduce(*comm_, tensors, type, op, options);
    EXPECT_TRUE(AllRanks(stats.ok())) << what << ": " << stats.status();
    if (!stats.ok()) return {};
    ExpectPackingThroughKernels(total * elem, *stats, what);
    const std::vector<char> mpi = MpiAllReduceOfExactInputs(type, op, total, MPI_COMM_WORLD);
    for (size_t t = 0; t < kCounts.size(); ++t) {
      const std::vector<char> exact =
          MakeBuffer(type, kCounts[t], [&](size_t i) { return ExactReduction(type, op, n, first[t] + i); });
      const std::vector<char> from_mpi(mpi.begin() + first[t] * elem, mpi.begin() + (first[t] + kCounts[t]) * elem);
      EXPECT_TRUE(SameElements(type, exact, tensors[t].recv, kCounts[t])) << what << " tensor " << t << " vs exact";
      EXPECT_TRUE(SameElements(type, from_mpi, tensors[t].recv, kCounts[t])) << what << " tensor " << t << " vs MPI";
    }
    EXPECT_EQ(stats->elements, total);
    const size_t bucket_elements = bucket_bytes / elem;
    EXPECT_EQ(stats->buckets, static_cast<int>((total + bucket_elements - 1) / bucket_elements)) << what;
    return *stats;
  }

  // Every packed bucket is copied in and out by the communicator's kernels (so on a GPU communicator by device
  // copies), outside any collective: the kernels' copies minus the collectives' own are twice the packed bytes.
  void ExpectPackingThroughKernels(size_t total_bytes, const BucketStats& stats, const std::string& what) {
    const Counters& counters = comm_->counters();
    KernelCounts outside = counters.total.copy;
    for (const CollectiveCounts& c : counters.collectives) outside -= c.primitives.copy;
    if (stats.packed == 0) {
      EXPECT_EQ(outside.bytes, 0u) << what;
      return;
    }
    // Bytes that skipped the packing buffer are whole-bucket pieces of one tensor; the rest went through it.
    EXPECT_GT(outside.bytes, 0u) << what;
    EXPECT_EQ(outside.bytes % 2, 0u) << what;
    EXPECT_LE(outside.bytes / 2, total_bytes) << what;
  }

  std::unique_ptr<Communicator> comm_;
};

TEST_F(BucketFusionTest, SmallBucketsAreBitExact) {
  for (DataType type : {DataType::kFloat32, DataType::kInt32, DataType::kBfloat16, DataType::kInt8}) {
    for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kAvg, ReduceOp::kMin}) {
      const BucketStats stats = Check(type, op, 256);
      // The 1000-element tensor fills whole buckets by itself: those skip the packing buffer.
      EXPECT_LT(stats.packed, stats.buckets);
      if (!AllRanks(!HasFailure())) return;
    }
  }
}

TEST_F(BucketFusionTest, BucketsThatAreNotAWholeNumberOfElements) {
  Check(DataType::kFloat64, ReduceOp::kProd, 100);  // 12 doubles per bucket
  Check(DataType::kFloat16, ReduceOp::kMax, 2);     // one element per bucket
}

TEST_F(BucketFusionTest, DefaultBucketHoldsEverythingInOneAllReduce) {
  const BucketStats stats = Check(DataType::kFloat32, ReduceOp::kSum, BucketOptions().bucket_bytes);
  EXPECT_EQ(stats.buckets, 1);
  EXPECT_EQ(stats.packed, 1);
}

TEST_F(BucketFusionTest, NoTensorsOrOnlyEmptyOnesRunNothing) {
  auto none = BucketedAllReduce(*comm_, {}, DataType::kFloat32, ReduceOp::kSum);
  ASSERT_TRUE(AllRanks(none.ok())) << none.status();
  EXPECT_EQ(none->buckets, 0);
  auto empty =
      BucketedAllReduce(*comm_, {{nullptr, nullptr, 0}, {nullptr, nullptr, 0}}, DataType::kFloat32, ReduceOp::kSum);
  ASSERT_TRUE(AllRanks(empty.ok())) << empty.status();
  EXPECT_EQ(empty->buckets, 0);
}

TEST_F(BucketFusionTest, BadArgumentsAreRejectedBeforeAnyTraffic) {
  std::vector<float> a(8);
  BucketOptions tiny;
  tiny.bucket_bytes = 3;
  auto s = BucketedAllReduce(*comm_, {{a.data(), a.data(), 8}}, DataType::kFloat32, ReduceOp::kSum, tiny);
  EXPECT_TRUE(AllRanks(s.status().code() == absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("bucket_bytes 3 is smaller than one float32 element"));
  auto null =
      BucketedAllReduce(*comm_, {{a.data(), a.data(), 8}, {nullptr, a.data(), 2}}, DataType::kFloat32, ReduceOp::kSum);
  EXPECT_TRUE(AllRanks(null.status().code() == absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(std::string(null.status().message()), HasSubstr("tensor 1 has count 2 but a null send buffer"));
  auto op = BucketedAllReduce(*comm_, {{a.data(), a.data(), 8}}, DataType::kFloat32, static_cast<ReduceOp>(42));
  EXPECT_TRUE(AllRanks(op.status().code() == absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(std::string(op.status().message()), HasSubstr("op 42 is not a kcoll ReduceOp"));
  BucketOptions device;
  device.memory = MemoryKind::kDevice;
  auto memory = BucketedAllReduce(*comm_, {{a.data(), a.data(), 8}}, DataType::kFloat32, ReduceOp::kSum, device);
  EXPECT_TRUE(AllRanks(memory.status().code() == absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(std::string(memory.status().message()),
              HasSubstr("memory device, but this communicator's kernels (serial) work on host memory"));
}

TEST_F(BucketFusionTest, FinalizedCommunicatorIsRefused) {
  std::vector<float> a(8);
  ASSERT_TRUE(comm_->Finalize().ok());
  auto s = BucketedAllReduce(*comm_, {{a.data(), a.data(), 8}}, DataType::kFloat32, ReduceOp::kSum);
  EXPECT_EQ(s.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("the communicator is finalized"));
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
