// BroadcastWithin (collectives/transport/mpi/mpi_wait.h): the root's values on every rank, from each root; false,
// not a hang, when the root has not called within the timeout; Internal, naming the call, when MPI refuses it.
#include "collectives/transport/mpi/mpi_wait.h"

#include <mpi.h>

#include <vector>

#include "gtest/gtest.h"
#include "tests/matchers.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace {

using ::kcoll::testing::WorldRank;
using ::kcoll::testing::WorldSize;

TEST(BroadcastWithinTest, EveryRankGetsTheRootsValuesFromEveryRoot) {
  std::vector<int> scratch;
  for (int root = 0; root < WorldSize(); ++root) {
    std::vector<double> values(5, -1.0);
    if (WorldRank() == root) {
      for (int i = 0; i < 5; ++i) values[i] = root * 10.0 + i;
    }
    absl::StatusOr<bool> done =
        BroadcastWithin(values.data(), 5, MPI_DOUBLE, root, MPI_COMM_WORLD, absl::Seconds(30), &scratch);
    ASSERT_TRUE(done.ok()) << done.status();
    EXPECT_TRUE(*done);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(values[i], root * 10.0 + i) << "root " << root << " element " << i;
  }
}

TEST(BroadcastWithinTest, ARootThatHasNotCalledEndsTheWaitWithFalse) {
  if (WorldSize() < 2) GTEST_SKIP() << "needs a root apart from the waiting ranks";
  // A communicator of its own, on which the root's late broadcast is the first collective, as on the others' side;
  // the ranks keep step through MPI_COMM_WORLD. It and the value stay MPI's: a broadcast that timed out is pending.
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  auto* value = new int(0);
  if (WorldRank() != 0) {
    std::vector<int> scratch;
    absl::StatusOr<bool> done = BroadcastWithin(value, 1, MPI_INT, 0, comm, absl::Milliseconds(50), &scratch);
    ASSERT_TRUE(done.ok()) << done.status();
    EXPECT_FALSE(*done);
  }
  MPI_Barrier(MPI_COMM_WORLD);  // the root joins only after every other rank gave up
  if (WorldRank() == 0) {
    *value = 7;
    MPI_Bcast(value, 1, MPI_INT, 0, comm);  // matches the broadcasts still pending
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(BroadcastWithinTest, ARootOutsideTheCommunicatorIsInternalNamingTheCall) {
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int value = 0;
  std::vector<int> scratch;
  absl::StatusOr<bool> done = BroadcastWithin(&value, 1, MPI_INT, WorldSize(), comm, absl::Seconds(5), &scratch);
  EXPECT_EQ(done.status().code(), absl::StatusCode::kInternal) << done.status();
  EXPECT_THAT(std::string(done.status().message()), HasSubstr("MPI_Ibcast failed: "));
  MPI_Comm_free(&comm);
}

}  // namespace
}  // namespace kcoll
