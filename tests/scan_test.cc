// Scan and ExScan through the public Communicator, for every registered algorithm, over the matrix of
// collective_test_util.h (every type and op; in place means send == recv). The linear chain runs the small counts in
// stages of three elements and the large count in stages of 64 KiB. Each rank's result is compared bit for bit with
// the exact reduction over its prefix of ranks and with MPI_Scan / MPI_Exscan; ExScan must leave rank 0's receive
// buffer as it was.
#include "tests/collective_test_util.h"
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
  if (!c.in_place) EXPECT_EQ(send, input) << c.Name() << ": the send buffer changed";
}

KCOLL_COLLECTIVE_TEST(ScanTest, Collective::kScan) { CheckScan(*comm_, c, GetParam(), Options(), false); }

KCOLL_COLLECTIVE_TEST(ExScanTest, Collective::kExScan) { CheckScan(*comm_, c, GetParam(), Options(), true); }

}  // namespace
}  // namespace testing
}  // namespace kcoll
