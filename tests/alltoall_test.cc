// AllToAll through the public Communicator, for every registered algorithm, over the matrix of
// collective_test_util.h (every type; counts per peer; in place means send == recv). Each result is compared bit for
// bit with the expected blocks and with MPI_Alltoall on the same input.
#include "tests/collective_test_util.h"
#include "tests/mpi_reference.h"

namespace kcoll {
namespace testing {
namespace {

KCOLL_COLLECTIVE_TEST(AllToAllTest, Collective::kAllToAll) {
  const int rank = WorldRank(), n = WorldSize();
  // Rank r's block j, element i: PatternValue(r, j * count + i), so every (sender, receiver, element) differs.
  std::vector<char> send = MakeBuffer(c.type, c.count * n, [&](size_t i) { return PatternValue(c.type, rank, i); });
  const std::vector<char> input = send;
  std::vector<char> separate = SentinelBuffer(c.type, c.count * n);
  void* recv = c.in_place ? send.data() : separate.data();

  const absl::Status status = comm_->AllToAll(send.data(), recv, c.count, c.type, Options());
  const std::vector<char> mpi = MpiAlltoall(c.type, input.data(), c.count, MPI_COMM_WORLD);
  if (!ExpectOk(status, c)) return;
  const std::vector<char> expected = MakeBuffer(c.type, c.count * n, [&](size_t i) {
    return PatternValue(c.type, static_cast<int>(i / c.count), rank * c.count + i % c.count);
  });
  EXPECT_TRUE(SameElements(c.type, expected, recv, c.count * n)) << c.Name() << ": differs from the expected blocks";
  EXPECT_TRUE(SameElements(c.type, mpi, recv, c.count * n)) << c.Name() << ": differs from MPI_Alltoall";
  ExpectSendKept(c, send, input);
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
