// Scan and ExScan through the public Communicator, for every transfer algorithm, over the matrix of
// collective_test_util.h (every type and op; in place means send == recv). The linear chain runs the small counts in
// stages of three elements and the large count in stages of 64 KiB. Each rank's result is compared bit for bit with
// the exact reduction over its prefix of ranks and with MPI_Scan / MPI_Exscan; ExScan must leave rank 0's receive
// buffer as it was. On one node over shared memory, the inline scans too: every type and op up to the most the lines
// hold, `auto` taking them for small buffers only, and thousands of calls in a row mixed with inline AllReduces on
// the same exchange.
#include <string>

#include "tests/collective_test_util.h"
#include "tests/make_communicator.h"
#include "tests/mpi_reference.h"

namespace kcoll {
namespace testing {
namespace {

void CheckScan(Communicator& comm, const Case& c, Algorithm algorithm, const CallOptions& base, bool exclusive) {
  const int rank = WorldRank();
  std::vector<char> send = MakeBuffer(c.type, c.count, [&](size_t i) { return ExactInput(c.type, c.op, rank, i); });
  const std::vector<char> input = send;
  std::vector<char> separate = SentinelBuffer(c.type, c.count);
  void* recv = c.in_place ? send.data() : separate.data();
  CallOptions options = base;
  if (algorithm == Algorithm::kLinear) {
    options.tuning.chunk_bytes = c.count == kLargeCount ? size_t{64} << 10 : 3 * DataTypeSize(c.type);
  }
  const absl::Status status = exclusive ? comm.ExScan(send.data(), recv, c.count, c.type, c.op, options)
                                        : comm.Scan(send.data(), recv, c.count, c.type, c.op, options);
  const std::vector<char> mpi = MpiScan(c.type, c.op, input.data(), c.count, exclusive, MPI_COMM_WORLD);
  EXPECT_TRUE(status.ok()) << c.Name() << ": " << status;
  if (!status.ok()) return;
  if (exclusive && rank == 0) {
    EXPECT_TRUE(SameElements(c.type, c.in_place ? input : SentinelBuffer(c.type, c.count), recv, c.count))
        << c.Name() << ": rank 0's receive buffer was written";
  } else {
    const int ranks = exclusive ? rank : rank + 1;
    const std::vector<char> exact =
        MakeBuffer(c.type, c.count, [&](size_t i) { return ExactReduction(c.type, c.op, ranks, i); });
    EXPECT_TRUE(SameElements(c.type, exact, recv, c.count)) << c.Name() << ": differs from the exact prefix";
    EXPECT_TRUE(SameElements(c.type, mpi, recv, c.count))
        << c.Name() << ": differs from " << (exclusive ? "MPI_Exscan" : "MPI_Scan");
  }
  if (!c.in_place) {
    EXPECT_EQ(send, input) << c.Name() << ": the send buffer changed";
  }
}

KCOLL_COLLECTIVE_TEST(ScanTest, Collective::kScan) { CheckScan(*comm_, c, GetParam(), Options(), false); }

KCOLL_COLLECTIVE_TEST(ExScanTest, Collective::kExScan) { CheckScan(*comm_, c, GetParam(), Options(), true); }

// Whether this run's communicators have the inline exchange: every rank on one node over shared memory.
bool InlineAvailable() { return WorldSize() > 1 && OneNodeOverSharedMemory(); }

uint64_t CallsOf(const Communicator& comm, Collective collective, Algorithm algorithm) {
  const CollectiveCounts* entry = comm.counters().Find(collective, algorithm);
  return entry == nullptr ? 0 : entry->calls;
}

TEST(InlineScan, EveryTypeAndOpIsBitExact) {
  if (!InlineAvailable()) GTEST_SKIP() << "needs 2 or more ranks on one node over shared memory";
  auto comm = MakeSerialCommunicator();
  ASSERT_TRUE(AllRanks(comm != nullptr));
  CallOptions options;
  options.algorithm = Algorithm::kInline;
  for (DataType type : AllDataTypes()) {
    const size_t most = 4096 / DataTypeSize(type);  // InlineExchange::kMaxPayloadBytes
    for (ReduceOp op : AllReduceOps()) {
      for (size_t count : {size_t{1}, size_t{7}, most}) {
        for (bool in_place : {false, true}) {
          for (bool exclusive : {false, true}) {
            CheckScan(*comm, Case{type, op, count, in_place, 0, true, false}, Algorithm::kInline, options, exclusive);
          }
        }
      }
    }
    ASSERT_TRUE(AllRanks(!HasFailure())) << DataTypeName(type);
  }
}

TEST(InlineScan, AutoTakesItForSmallBuffersOnly) {
  if (!InlineAvailable()) GTEST_SKIP() << "needs 2 or more ranks on one node over shared memory";
  auto comm = MakeSerialCommunicator();
  ASSERT_TRUE(AllRanks(comm != nullptr));
  const int rank = WorldRank();
  // Past the communicator's inline limit (measured at creation, up to the 4 KiB the lines hold).
  const size_t above = comm->inline_limit_bytes() / sizeof(double) + 1;
  std::vector<double> send(above, rank + 1.0), recv(above, 0.0);
  ASSERT_TRUE(comm->Scan(send.data(), recv.data(), 1, DataType::kFloat64, ReduceOp::kSum).ok());  // 8 B
  EXPECT_EQ(recv[0], (rank + 1) * (rank + 2) / 2.0);
  ASSERT_TRUE(comm->ExScan(send.data(), recv.data(), 2, DataType::kFloat64, ReduceOp::kMax).ok());  // 16 B
  if (rank > 0) {
    EXPECT_EQ(recv[1], rank);
  }
  EXPECT_EQ(CallsOf(*comm, Collective::kScan, Algorithm::kInline), 1u);
  EXPECT_EQ(CallsOf(*comm, Collective::kExScan, Algorithm::kInline), 1u);
  ASSERT_TRUE(comm->Scan(send.data(), recv.data(), above, DataType::kFloat64, ReduceOp::kSum).ok());
  EXPECT_EQ(recv[above - 1], (rank + 1) * (rank + 2) / 2.0);
  EXPECT_EQ(CallsOf(*comm, Collective::kScan, Algorithm::kInline), 1u)
      << "a scan of " << above * sizeof(double) << " B went inline";
}

TEST(InlineScan, ManyCallsMixedWithAllReducesEachSeeTheirOwnInputs) {
  if (!InlineAvailable()) GTEST_SKIP() << "needs 2 or more ranks on one node over shared memory";
  auto comm = MakeSerialCommunicator();
  ASSERT_TRUE(AllRanks(comm != nullptr));
  const int64_t rank = WorldRank(), n = WorldSize();
  // Call i: rank r contributes i * (r + 1); the three collectives take turns on the same lines (which alternate by
  // call parity), so a stale line from an earlier call would give another value.
  int wrong = 0;
  for (int64_t i = 0; i < 3000; ++i) {
    int64_t mine = i * (rank + 1), out = -1;
    const int which = static_cast<int>(i % 3);
    const absl::Status status = which == 0   ? comm->Scan(&mine, &out, 1, DataType::kInt64, ReduceOp::kSum)
                                : which == 1 ? comm->ExScan(&mine, &out, 1, DataType::kInt64, ReduceOp::kSum)
                                             : comm->AllReduce(&mine, &out, 1, DataType::kInt64, ReduceOp::kSum);
    ASSERT_TRUE(status.ok()) << "call " << i << ": " << status;
    const int64_t upto = which == 0 ? rank + 1 : which == 1 ? rank : n;  // ranks reduced
    const int64_t want = which == 1 && rank == 0 ? -1 : i * upto * (upto + 1) / 2;
    if (out != want) ++wrong;
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(CallsOf(*comm, Collective::kScan, Algorithm::kInline), 1000u);
  EXPECT_EQ(CallsOf(*comm, Collective::kExScan, Algorithm::kInline), 1000u);
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
