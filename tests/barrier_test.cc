// Barrier through the public Communicator, for every registered algorithm. The ranks share a counter in MPI
// shared memory (the test ranks run on one machine): in each round every rank increments it before entering the
// barrier, one rank (a different one each round) only after a delay, and every rank reads it after leaving. A rank
// that left before every rank entered would read fewer than n increments for the round; a barrier that let a rank
// run a whole round ahead would show more than n - 1 extra.
#include <chrono>
#include <cstdint>
#include <thread>

#include "tests/collective_test_util.h"

namespace kcoll {
namespace testing {
namespace {

class BarrierTest : public CollectiveTest {};

TEST_P(BarrierTest, NoRankLeavesBeforeEveryRankEntered) {
  const int rank = WorldRank(), n = WorldSize();
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_size = 0;
  MPI_Comm_size(node, &node_size);
  if (!AllRanks(node_size == n)) {
    MPI_Comm_free(&node);
    GTEST_SKIP() << "the ranks do not share one node's memory";
  }
  int64_t* mine = nullptr;
  MPI_Win window = MPI_WIN_NULL;
  MPI_Win_allocate_shared(rank == 0 ? sizeof(int64_t) : 0, sizeof(int64_t), MPI_INFO_NULL, node, &mine, &window);
  MPI_Aint size = 0;
  int unit = 0;
  int64_t* counter = nullptr;
  MPI_Win_shared_query(window, 0, &size, &unit, &counter);
  if (rank == 0) __atomic_store_n(counter, 0, __ATOMIC_SEQ_CST);
  MPI_Barrier(MPI_COMM_WORLD);

  constexpr int kRoundsPerBackend = 4;
  int64_t round = 0;
  for (ExecBackend backend : TestBackends()) {
    comm_ = MakeCommunicator(backend);
    if (!AllRanks(comm_ != nullptr)) break;
    for (int i = 0; i < kRoundsPerBackend; ++i) {
      ++round;
      if (rank == static_cast<int>(round % n)) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      __atomic_add_fetch(counter, 1, __ATOMIC_SEQ_CST);
      const absl::Status status = comm_->Barrier(Options());
      const int64_t seen = __atomic_load_n(counter, __ATOMIC_SEQ_CST);
      if (!AllRanks(status.ok())) {
        ADD_FAILURE() << "round " << round << ": " << status;
        break;
      }
      EXPECT_GE(seen, round * n) << "round " << round << " (" << ExecBackendName(backend)
                                 << "): left the barrier before every rank entered";
      EXPECT_LT(seen, (round + 1) * n) << "round " << round << " (" << ExecBackendName(backend)
                                       << "): a rank ran a round ahead";
    }
    comm_.reset();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&window);
  MPI_Comm_free(&node);
}

INSTANTIATE_TEST_SUITE_P(Algorithms, BarrierTest, ::testing::ValuesIn(AlgorithmsUnderTest(Collective::kBarrier)),
                         AlgorithmParamName);

}  // namespace
}  // namespace testing
}  // namespace kcoll
