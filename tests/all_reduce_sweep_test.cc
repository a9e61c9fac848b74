// Exhaustive AllReduce sweep (tagged manual + exhaustive; run with
// `bazel test //tests:all_reduce_sweep_test`): every algorithm, every type and op, in place and out of place, every
// count from 0 to 4n+3, with one-element chunks and with the defaults. Checked bit for bit against the exact
// result and MPI_Allreduce.
#include <memory>
#include <string>

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

class SweepTest : public ::testing::TestWithParam<Algorithm> {};

TEST_P(SweepTest, EveryCountTypeOpAndChunking) {
  auto comm = MakeCommunicator(ExecBackend::kSerial);
  ASSERT_NE(comm, nullptr);
  const size_t n = static_cast<size_t>(WorldSize());
  CallOptions call;
  call.algorithm = GetParam();
  for (size_t chunk_bytes : {size_t{0}, size_t{1}}) {
    call.tuning.chunk_bytes = chunk_bytes;
    for (DataType type : AllDataTypes()) {
      for (ReduceOp op : AllReduceOps()) {
        for (size_t count = 0; count <= 4 * n + 3; ++count) {
          for (bool in_place : {false, true}) {
            ASSERT_TRUE(AllReduceMatches(*comm, call, type, op, count, in_place));
          }
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Algorithms, SweepTest, ::testing::ValuesIn(TransferAlgorithmsFor(Collective::kAllReduce)),
                         AlgorithmParamName);

}  // namespace
}  // namespace testing
}  // namespace kcoll
