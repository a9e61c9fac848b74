// The embedding contract (docs/embedding.md, "Threads, communicators, finalisation"): several communicators on
// MPI_Comm_split sub-communicators used interleaved with one on the whole job, and a communicator that outlives the
// MPI communicator it was created from.
#include <mpi.h>

#include <memory>
#include <vector>

#include "collectives/communicator.h"
#include "gtest/gtest.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace testing {
namespace {

std::unique_ptr<Communicator> Make(MPI_Comm comm) {
  auto created = Communicator::Create(comm);
  EXPECT_TRUE(created.ok()) << created.status();
  return created.ok() ? *std::move(created) : nullptr;
}

TEST(Contract, SplitCommunicatorsUsedInterleaved) {
  const int me = WorldRank(), n = WorldSize();
  // Even and odd ranks, and a second split into halves: every rank is in three communicators at once.
  MPI_Comm parity = MPI_COMM_NULL, halves = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &parity);
  MPI_Comm_split(MPI_COMM_WORLD, me < n / 2 ? 0 : 1, me, &halves);
  auto world = Make(MPI_COMM_WORLD);
  auto by_parity = Make(parity);
  auto by_half = Make(halves);
  ASSERT_TRUE(AllRanks(world && by_parity && by_half));
  int parity_size = 0, half_size = 0;
  MPI_Comm_size(parity, &parity_size);
  MPI_Comm_size(halves, &half_size);
  for (int round = 0; round < 20; ++round) {
    int64_t mine = me + round, sum = 0;
    // The expected sums over each group, computed locally.
    int64_t want_parity = 0, want_half = 0, want_world = 0;
    for (int r = 0; r < n; ++r) {
      want_world += r + round;
      if (r % 2 == me % 2) want_parity += r + round;
      if ((r < n / 2) == (me < n / 2)) want_half += r + round;
    }
    ASSERT_TRUE(by_parity->AllReduce(&mine, &sum, 1, DataType::kInt64, ReduceOp::kSum).ok());
    EXPECT_EQ(sum, want_parity);
    ASSERT_TRUE(world->AllReduce(&mine, &sum, 1, DataType::kInt64, ReduceOp::kSum).ok());
    EXPECT_EQ(sum, want_world);
    ASSERT_TRUE(by_half->AllReduce(&mine, &sum, 1, DataType::kInt64, ReduceOp::kSum).ok());
    EXPECT_EQ(sum, want_half);
    // A rooted collective on a sub-communicator, root = its last rank.
    int64_t value = round * 100 + me, got = -1;
    ASSERT_TRUE(by_parity->Broadcast(&value, &got, 1, DataType::kInt64, parity_size - 1).ok());
    const int last_of_parity = (me % 2) + 2 * (parity_size - 1);
    EXPECT_EQ(got, round * 100 + last_of_parity);
  }
  EXPECT_EQ(by_half->size(), half_size);
  EXPECT_TRUE(by_half->Finalize().ok());
  EXPECT_TRUE(by_parity->Finalize().ok());
  MPI_Comm_free(&halves);
  MPI_Comm_free(&parity);
}

TEST(Contract, OutlivesTheCommunicatorItWasCreatedFrom) {
  MPI_Comm mine = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &mine);
  auto comm = Make(mine);
  ASSERT_TRUE(AllRanks(comm != nullptr));
  MPI_Comm_free(&mine);  // kcoll duplicated it at creation: the application's handle is its own to free
  std::vector<int32_t> in(1000, WorldRank() + 1), out(1000, 0);
  ASSERT_TRUE(comm->AllReduce(in.data(), out.data(), in.size(), DataType::kInt32, ReduceOp::kSum).ok());
  const int n = WorldSize();
  for (int32_t v : out) ASSERT_EQ(v, n * (n + 1) / 2);
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
