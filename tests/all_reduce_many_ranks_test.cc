// Every AllReduce algorithm on rank counts that stress the schedules' arithmetic: 6 (folded onto 4 with 2 extra),
// 7 (3 extra, and an odd double binary tree), 9 (one extra), 13 and 16 (deeper trees, a power of two). A reduced
// matrix of types and ops at counts around the rank count, with default and tiny chunks. Checked bit for bit
// against the exact result and MPI_Allreduce.
#include <memory>
#include <string>
#include <vector>

#include "collectives/algorithms/registry.h"
#include "collectives/communicator.h"
#include "gtest/gtest.h"
#include "tests/algorithm_param.h"
#include "tests/all_reduce_check.h"
#include "tests/make_communicator.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace testing {
namespace {

struct Case {
  DataType type;
  ReduceOp op;
  bool in_place;
};

class ManyRanksTest : public ::testing::TestWithParam<Algorithm> {};

TEST_P(ManyRanksTest, UnevenCountsAreBitExact) {
  auto comm = MakeCommunicator(ExecBackend::kSerial);
  ASSERT_NE(comm, nullptr);
  const size_t n = static_cast<size_t>(WorldSize());
  const std::vector<Case> cases = {
      {DataType::kInt32, ReduceOp::kSum, false},    {DataType::kFloat16, ReduceOp::kSum, true},
      {DataType::kFloat64, ReduceOp::kProd, false}, {DataType::kInt8, ReduceOp::kMax, true},
      {DataType::kBfloat16, ReduceOp::kMin, false}, {DataType::kUint32, ReduceOp::kAvg, true},
  };
  CallOptions call;
  call.algorithm = GetParam();
  size_t next = 0;
  for (size_t count : {size_t{0}, size_t{1}, n - 1, n + 1, 3 * n + 2, size_t{1001}}) {
    // Two cases per count, rotating through the list so that every case meets several counts.
    for (int k = 0; k < 2; ++k, ++next) {
      const Case& c = cases[next % cases.size()];
      ASSERT_TRUE(AllReduceMatches(*comm, call, c.type, c.op, count, c.in_place));
    }
  }
  call.tuning.chunk_bytes = 64;  // many slices / chunks
  ASSERT_TRUE(AllReduceMatches(*comm, call, DataType::kInt32, ReduceOp::kSum, 1001, false));
  ASSERT_TRUE(AllReduceMatches(*comm, call, DataType::kFloat16, ReduceOp::kMax, 5 * n + 3, true));
}

INSTANTIATE_TEST_SUITE_P(Algorithms, ManyRanksTest, ::testing::ValuesIn(TransferAlgorithmsFor(Collective::kAllReduce)),
                         AlgorithmParamName);

}  // namespace
}  // namespace testing
}  // namespace kcoll
