// Gather and Scatter through the public Communicator, for every registered algorithm of each, over the matrix of
// collective_test_util.h (every type and root; in place means, on the root, send == recv + root * count for Gather
// and recv == send + root * count for Scatter). Results are compared bit for bit with the expected blocks and with
// MPI_Gather / MPI_Scatter. Ranks pass only the buffers the call reads or writes on them (none of the non-roots'
// Gather receive or Scatter send buffers).
#include "tests/collective_test_util.h"
#include "tests/mpi_reference.h"

namespace kcoll {
namespace testing {
namespace {

KCOLL_COLLECTIVE_TEST(GatherTest, Collective::kGather) {
  const int rank = WorldRank(), n = WorldSize();
  const size_t elem = DataTypeSize(c.type);
  const std::vector<char> mine = MakeBuffer(c.type, c.count, [&](size_t i) { return PatternValue(c.type, rank, i); });
  std::vector<char> recv;  // the root's only
  const void* send = mine.data();
  if (rank == c.root) {
    recv = SentinelBuffer(c.type, c.count * n);
    if (c.in_place) {
      std::copy(mine.begin(), mine.end(), recv.begin() + c.root * c.count * elem);
      send = recv.data() + c.root * c.count * elem;
    }
  }

  const absl::Status status =
      comm_->Gather(send, rank == c.root ? recv.data() : nullptr, c.count, c.type, c.root, Options());
  const std::vector<char> mpi = MpiGather(c.type, mine.data(), c.count, c.root, MPI_COMM_WORLD);
  if (!ExpectOk(status, c) || rank != c.root) return;
  const std::vector<char> expected = MakeBuffer(
      c.type, c.count * n, [&](size_t i) { return PatternValue(c.type, static_cast<int>(i / c.count), i % c.count); });
  EXPECT_TRUE(SameElements(c.type, expected, recv.data(), c.count * n))
      << c.Name() << ": differs from the expected blocks";
  EXPECT_TRUE(SameElements(c.type, mpi, recv.data(), c.count * n)) << c.Name() << ": differs from MPI_Gather";
}

KCOLL_COLLECTIVE_TEST(ScatterTest, Collective::kScatter) {
  const int rank = WorldRank(), n = WorldSize();
  const size_t elem = DataTypeSize(c.type);
  // The root's block j, element i: PatternValue(root, j * count + i).
  std::vector<char> send;  // the root's only
  std::vector<char> separate = SentinelBuffer(c.type, c.count);
  void* recv = separate.data();
  if (rank == c.root) {
    send = MakeBuffer(c.type, c.count * n, [&](size_t i) { return PatternValue(c.type, c.root, i); });
    if (c.in_place) recv = send.data() + c.root * c.count * elem;
  }
  const std::vector<char> input = send;

  const absl::Status status =
      comm_->Scatter(rank == c.root ? send.data() : nullptr, recv, c.count, c.type, c.root, Options());
  const std::vector<char> mpi = MpiScatter(c.type, input.data(), c.count, c.root, MPI_COMM_WORLD);
  if (!ExpectOk(status, c)) return;
  const std::vector<char> expected =
      MakeBuffer(c.type, c.count, [&](size_t i) { return PatternValue(c.type, c.root, rank * c.count + i); });
  EXPECT_TRUE(SameElements(c.type, expected, recv, c.count)) << c.Name() << ": differs from the root's block " << rank;
  EXPECT_TRUE(SameElements(c.type, mpi, recv, c.count)) << c.Name() << ": differs from MPI_Scatter";
  if (rank == c.root) {
    EXPECT_EQ(send, input) << c.Name() << ": the root's send buffer changed";
  }
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
