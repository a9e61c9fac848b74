// SendRecv (nccl-tests' sendrecv: rank r sends to r+1, receives from r-1) through the public Communicator, for
// every registered algorithm, over the matrix of collective_test_util.h (every type; in place means send == recv).
// Each result is compared bit for bit with the left neighbour's data and with MPI_Sendrecv around the same ring.
#include "tests/collective_test_util.h"
#include "tests/mpi_reference.h"

namespace kcoll {
namespace testing {
namespace {

KCOLL_COLLECTIVE_TEST(SendRecvTest, Collective::kSendRecv) {
  const int rank = WorldRank(), n = WorldSize();
  const int left = (rank - 1 + n) % n;
  std::vector<char> send = MakeBuffer(c.type, c.count, [&](size_t i) { return PatternValue(c.type, rank, i); });
  const std::vector<char> input = send;
  std::vector<char> separate = SentinelBuffer(c.type, c.count);
  void* recv = c.in_place ? send.data() : separate.data();

  const absl::Status status = comm_->SendRecv(send.data(), recv, c.count, c.type, Options());
  const std::vector<char> mpi = MpiSendrecvRing(c.type, input.data(), c.count, MPI_COMM_WORLD);
  if (!ExpectOk(status, c)) return;
  const std::vector<char> expected =
      MakeBuffer(c.type, c.count, [&](size_t i) { return PatternValue(c.type, left, i); });
  EXPECT_TRUE(SameElements(c.type, expected, recv, c.count)) << c.Name() << ": differs from rank " << left << "'s data";
  EXPECT_TRUE(SameElements(c.type, mpi, recv, c.count)) << c.Name() << ": differs from MPI_Sendrecv";
  ExpectSendKept(c, send, input);
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
