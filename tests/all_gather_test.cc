// AllGather through the public Communicator, for every registered algorithm, over the matrix of
// collective_test_util.h (every type; in place means send == recv + rank * count). Each result is compared bit for
// bit with the expected blocks and with MPI_Allgather on the same input.
#include "tests/collective_test_util.h"
#include "tests/mpi_reference.h"

namespace kcoll {
namespace testing {
namespace {

KCOLL_COLLECTIVE_TEST(AllGatherTest, Collective::kAllGather) {
  const int rank = WorldRank(), n = WorldSize();
  const size_t elem = DataTypeSize(c.type);
  const std::vector<char> mine = MakeBuffer(c.type, c.count, [&](size_t i) { return PatternValue(c.type, rank, i); });
  std::vector<char> recv = SentinelBuffer(c.type, c.count * n);
  const void* send = mine.data();
  if (c.in_place) {
    std::copy(mine.begin(), mine.end(), recv.begin() + rank * c.count * elem);
    send = recv.data() + rank * c.count * elem;
  }

  const absl::Status status = comm_->AllGather(send, recv.data(), c.count, c.type, Options());
  const std::vector<char> mpi = MpiAllgather(c.type, mine.data(), c.count, MPI_COMM_WORLD);
  if (!ExpectOk(status, c)) return;
  const std::vector<char> expected = MakeBuffer(
      c.type, c.count * n, [&](size_t i) { return PatternValue(c.type, static_cast<int>(i / c.count), i % c.count); });
  EXPECT_TRUE(SameElements(c.type, expected, recv.data(), c.count * n))
      << c.Name() << ": differs from the expected blocks";
  EXPECT_TRUE(SameElements(c.type, mpi, recv.data(), c.count * n)) << c.Name() << ": differs from MPI_Allgather";
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
