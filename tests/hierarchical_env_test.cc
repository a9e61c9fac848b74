// Emulated nodes from the environment: run with KCOLL_RANKS_PER_NODE set (the BUILD target sets it to 2), a
// communicator created without options splits the ranks into nodes of that size, and the hierarchical algorithms
// run on them.
#include <cstdlib>
#include <memory>

#include "absl/strings/numbers.h"
#include "collectives/communicator.h"
#include "gtest/gtest.h"
#include "tests/all_reduce_check.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace testing {
namespace {

TEST(HierarchicalEnvTest, RanksPerNodeFromTheEnvironment) {
  const char* env = std::getenv("KCOLL_RANKS_PER_NODE");
  ASSERT_NE(env, nullptr) << "the test target sets KCOLL_RANKS_PER_NODE";
  int per_node = 0;
  ASSERT_TRUE(absl::SimpleAtoi(env, &per_node));
  auto comm = Communicator::Create(MPI_COMM_WORLD);
  ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
  EXPECT_TRUE((*comm)->topology().emulated);
  EXPECT_EQ((*comm)->topology().nnodes, WorldSize() / per_node);
  EXPECT_EQ((*comm)->topology().uniform_ranks_per_node(), per_node);
  for (Algorithm algorithm : {Algorithm::kHierarchical, Algorithm::kHierarchicalRingTree}) {
    CallOptions call;
    call.algorithm = algorithm;
    ASSERT_TRUE(AllReduceMatches(**comm, call, DataType::kFloat32, ReduceOp::kSum, 12345, false));
    ASSERT_TRUE(AllReduceMatches(**comm, call, DataType::kInt32, ReduceOp::kMax, 7, true));
  }
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
