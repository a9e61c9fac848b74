// Reduce through the public Communicator, for every registered algorithm, over the matrix of
// collective_test_util.h (every type, op and root; in place means send == recv). The chain runs the small counts in
// stages of three elements and the large count in stages of 64 KiB. The root's result is compared bit for bit
// with the exact reduction and with MPI_Reduce; the other ranks' receive buffers must stay untouched.
#include "tests/collective_test_util.h"
#include "tests/mpi_reference.h"

namespace kcoll {
namespace testing {
namespace {

KCOLL_COLLECTIVE_TEST(ReduceTest, Collective::kReduce) {
  const int rank = WorldRank(), n = WorldSize();
  std::vector<char> send = MakeBuffer(c.type, c.count, [&](size_t i) { return ExactInput(c.type, c.op, rank, i); });
  const std::vector<char> input = send;
  std::vector<char> separate = SentinelBuffer(c.type, c.count);
  void* recv = c.in_place ? send.data() : separate.data();
  CallOptions options = Options();
  // The chain in stages of three elements at the small counts and of 64 KiB at the large one, so both run several.
  if (GetParam() == Algorithm::kChain) {
    options.tuning.chunk_bytes = c.count == kLargeCount ? size_t{64} << 10 : 3 * DataTypeSize(c.type);
  }
  const absl::Status status = comm_->Reduce(send.data(), recv, c.count, c.type, c.op, c.root, options);
  const std::vector<char> mpi = MpiReduce(c.type, c.op, input.data(), c.count, c.root, MPI_COMM_WORLD);
  if (!ExpectOk(status, c)) return;
  if (rank == c.root) {
    const std::vector<char> exact =
        MakeBuffer(c.type, c.count, [&](size_t i) { return ExactReduction(c.type, c.op, n, i); });
    EXPECT_TRUE(SameElements(c.type, exact, recv, c.count)) << c.Name() << ": differs from the exact reduction";
    EXPECT_TRUE(SameElements(c.type, mpi, recv, c.count)) << c.Name() << ": differs from MPI_Reduce";
  } else {
    // Not the root: neither buffer may change (in place they are one).
    EXPECT_TRUE(SameElements(c.type, c.in_place ? input : SentinelBuffer(c.type, c.count), recv, c.count))
        << c.Name() << ": a non-root receive buffer was written";
  }
  ExpectSendKept(c, send, input);
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
