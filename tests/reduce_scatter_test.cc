// ReduceScatter through the public Communicator, for every registered algorithm, over the matrix of
// collective_test_util.h (every type and op; in place means recv == send + rank * count). Each result is compared
// bit for bit with the exact reduction computed in double and with MPI_Reduce_scatter_block on the same input.
#include "tests/collective_test_util.h"
#include "tests/mpi_reference.h"

namespace kcoll {
namespace testing {
namespace {

KCOLL_COLLECTIVE_TEST(ReduceScatterTest, Collective::kReduceScatter) {
  const int rank = WorldRank(), n = WorldSize();
  const size_t elem = DataTypeSize(c.type);
  std::vector<char> send = MakeBuffer(c.type, c.count * n, [&](size_t i) { return ExactInput(c.type, c.op, rank, i); });
  const std::vector<char> input = send;
  std::vector<char> separate = SentinelBuffer(c.type, c.count);
  void* recv = c.in_place ? send.data() + rank * c.count * elem : separate.data();

  const absl::Status status = comm_->ReduceScatter(send.data(), recv, c.count, c.type, c.op, Options());
  const std::vector<char> mpi = MpiReduceScatterBlock(c.type, c.op, input.data(), c.count, MPI_COMM_WORLD);
  if (!ExpectOk(status, c)) return;
  const std::vector<char> exact =
      MakeBuffer(c.type, c.count, [&](size_t i) { return ExactReduction(c.type, c.op, n, rank * c.count + i); });
  EXPECT_TRUE(SameElements(c.type, exact, recv, c.count)) << c.Name() << ": differs from the exact reduction";
  EXPECT_TRUE(SameElements(c.type, mpi, recv, c.count)) << c.Name() << ": differs from MPI_Reduce_scatter_block";
  ExpectSendKept(c, send, input);
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
