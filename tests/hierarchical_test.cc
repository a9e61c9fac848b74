// The hierarchical AllReduce algorithms on emulated nodes: every ranks_per_node that divides the rank count (one
// node, one rank per node and the 2D cases in between), checked bit for bit against the exact result and
// MPI_Allreduce; a ranks_per_node that does not divide is refused when the communicator is created, and nodes of
// different sizes are refused by the algorithms themselves.
#include <memory>
#include <string>
#include <vector>

#include "base/topology.h"
#include "collectives/algorithms/registry.h"
#include "collectives/communicator.h"
#include "collectives/kernels/backend.h"
#include "collectives/transport/mpi/mpi_transport.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/all_reduce_check.h"
#include "tests/make_communicator.h"
#include "tests/matchers.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace testing {
namespace {

std::unique_ptr<Communicator> CommunicatorWithNodesOf(int ranks_per_node) {
  CommunicatorOptions options;
  options.backend = ExecBackend::kSerial;
  options.ranks_per_node = ranks_per_node;
  return MakeCommunicator(options);
}

TEST(HierarchicalTest, EveryNodeSizeThatDividesTheRanks) {
  const int n = WorldSize();
  for (int per_node = 1; per_node <= n; ++per_node) {
    if (n % per_node != 0) continue;
    auto comm = CommunicatorWithNodesOf(per_node);
    ASSERT_TRUE(AllRanks(comm != nullptr));
    ASSERT_EQ(comm->topology().nnodes, n / per_node);
    ASSERT_TRUE(comm->topology().emulated);
    const size_t g = static_cast<size_t>(per_node), nr = static_cast<size_t>(n);
    for (Algorithm algorithm : {Algorithm::kHierarchical, Algorithm::kHierarchicalRingTree}) {
      // chunk_bytes 0: one slice; 4 and 20: many slices, blocks of one and of several elements.
      for (size_t chunk_bytes : {size_t{0}, size_t{4}, size_t{20}}) {
        CallOptions call;
        call.algorithm = algorithm;
        call.tuning.chunk_bytes = chunk_bytes;
        SCOPED_TRACE(::testing::Message() << per_node << " ranks per node");
        ASSERT_TRUE(AllReduceMatches(*comm, call, DataType::kInt32, ReduceOp::kSum, 0, false));
        ASSERT_TRUE(AllReduceMatches(*comm, call, DataType::kInt32, ReduceOp::kSum, 1, true));
        ASSERT_TRUE(AllReduceMatches(*comm, call, DataType::kFloat16, ReduceOp::kSum, g - 1, false));
        ASSERT_TRUE(AllReduceMatches(*comm, call, DataType::kFloat64, ReduceOp::kProd, nr + 1, true));
        ASSERT_TRUE(AllReduceMatches(*comm, call, DataType::kInt8, ReduceOp::kMin, 3 * nr + 2, false));
        ASSERT_TRUE(AllReduceMatches(*comm, call, DataType::kBfloat16, ReduceOp::kMax, 1001, true));
        ASSERT_TRUE(AllReduceMatches(*comm, call, DataType::kUint64, ReduceOp::kAvg, 257, false));
      }
    }
  }
}

TEST(HierarchicalTest, RanksPerNodeThatDoesNotDivideIsRefused) {
  const int n = WorldSize();
  int per_node = 2;
  while (n % per_node == 0) ++per_node;
  CommunicatorOptions options;
  options.ranks_per_node = per_node;
  auto comm = Communicator::Create(MPI_COMM_WORLD, options);
  ASSERT_TRUE(AllRanks(absl::IsInvalidArgument(comm.status()))) << comm.status();
  EXPECT_THAT(std::string(comm.status().message()), HasSubstr("does not divide the number of ranks"));
}

// Nodes of different sizes cannot come from ranks_per_node, only from real placement: build such a topology by
// hand (rank 0 alone on node 0, the others on node 1) and call the algorithms directly.
TEST(HierarchicalTest, NodesOfDifferentSizesAreRefused) {
  const int n = WorldSize();
  if (n < 3) GTEST_SKIP() << "nodes of different sizes need at least 3 ranks";
  std::vector<int> labels(n, 1);
  labels[0] = 0;
  const Topology topology = MakeTopology(WorldRank(), labels, /*emulated=*/false);
  auto transport = MpiTransport::Create(MPI_COMM_WORLD).value();
  auto kernels = MakeKernels(ExecBackend::kSerial).value();
  Resources res{*transport, *kernels, topology};
  std::vector<float> data(10, 1.0f);
  CollectiveArgs args;
  args.send = data.data();
  args.recv = data.data();
  args.count = data.size();
  for (Algorithm algorithm : {Algorithm::kHierarchical, Algorithm::kHierarchicalRingTree}) {
    const absl::Status s = FindAlgorithm(Collective::kAllReduce, algorithm).value()(args, res);
    ASSERT_TRUE(AllRanks(absl::IsInvalidArgument(s))) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("different numbers of ranks (1, " + std::to_string(n - 1) + ")"));
  }
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
