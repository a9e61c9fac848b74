// AllReduce through the public Communicator, for every registered algorithm, every type and op, in place and out
// of place, at counts 0, 1, n-1, n+1 and 2n+3, plus a large odd count. Each result is compared byte for byte with
// the exact expectation computed in double and with MPI_Allreduce on the same inputs.
//
// Every algorithm runs on the serial backend; the OpenMP backend runs the default algorithm only. A schedule calls
// the same Kernels interface whichever backend implements it, and kernels_test checks the backends themselves, so
// crossing every algorithm with every backend would double the run time (multi-rank tests oversubscribe the cores)
// without exercising anything new.
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collectives/algorithms/registry.h"
#include "collectives/communicator.h"
#include "collectives/kernels/backend.h"
#include "gtest/gtest.h"
#include "tests/all_reduce_check.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace testing {
namespace {

using Param = std::tuple<Algorithm, ExecBackend>;

class AllReduceTest : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    CommunicatorOptions options;
    options.backend = std::get<1>(GetParam());
    auto comm = Communicator::Create(MPI_COMM_WORLD, options);
    ASSERT_TRUE(comm.ok()) << comm.status();
    comm_ = std::move(comm).value();
    call_.algorithm = std::get<0>(GetParam());
  }

  std::unique_ptr<Communicator> comm_;
  CallOptions call_;
};

TEST_P(AllReduceTest, EveryTypeAndOpIsBitExact) {
  const size_t n = static_cast<size_t>(WorldSize());
  for (DataType type : AllDataTypes()) {
    for (ReduceOp op : AllReduceOps()) {
      for (size_t count : {size_t{0}, size_t{1}, n - 1, n + 1, size_t{2 * n + 3}}) {
        for (bool in_place : {false, true}) {
          ASSERT_TRUE(AllReduceMatches(*comm_, call_, type, op, count, in_place));
        }
      }
    }
  }
}

TEST_P(AllReduceTest, LargeOddCount) {
  ASSERT_TRUE(AllReduceMatches(*comm_, call_, DataType::kInt32, ReduceOp::kSum, 100003, false));
  ASSERT_TRUE(AllReduceMatches(*comm_, call_, DataType::kFloat16, ReduceOp::kSum, 100003, true));
  ASSERT_TRUE(AllReduceMatches(*comm_, call_, DataType::kFloat64, ReduceOp::kSum, 100003, true));
  ASSERT_TRUE(AllReduceMatches(*comm_, call_, DataType::kBfloat16, ReduceOp::kMax, 100003, false));
}

// Every algorithm on the serial backend, the default algorithm on every other host backend.
std::vector<Param> Params() {
  const std::vector<Algorithm> algorithms = TransferAlgorithmsFor(Collective::kAllReduce);
  std::vector<Param> out;
  for (Algorithm a : algorithms) out.emplace_back(a, ExecBackend::kSerial);
  if (IsAvailable(ExecBackend::kOpenMP) && !algorithms.empty())
    out.emplace_back(algorithms.front(), ExecBackend::kOpenMP);
  return out;
}

std::string ParamName(const ::testing::TestParamInfo<Param>& info) {
  return absl::StrCat(AlgorithmName(std::get<0>(info.param)), "_", ExecBackendName(std::get<1>(info.param)));
}

INSTANTIATE_TEST_SUITE_P(Algorithms, AllReduceTest, ::testing::ValuesIn(Params()), ParamName);

}  // namespace
}  // namespace testing
}  // namespace kcoll
