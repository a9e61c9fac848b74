// AllReduce through the public Communicator, for every registered algorithm, both host backends, every type and
// op, in place and out of place, at counts 0, 1, n-1, n+1 and one large odd count. Each result is compared byte for
// byte with the exact expectation computed in double and with MPI_Allreduce on the same inputs.
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collectives/algorithms/registry.h"
#include "collectives/communicator.h"
#include "gtest/gtest.h"
#include "tests/exact_values.h"
#include "tests/mpi_reference.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace {

using testing::AllRanks;
using testing::EncodeAt;
using testing::ExactInput;
using testing::ExactReduction;
using testing::MpiAllReduceOfExactInputs;
using testing::WorldRank;
using testing::WorldSize;

using Param = std::tuple<Algorithm, ExecBackend>;

class AllReduceTest : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    CommunicatorOptions options;
    options.backend = std::get<1>(GetParam());
    auto comm = Communicator::Create(MPI_COMM_WORLD, options);
    ASSERT_TRUE(comm.ok()) << comm.status();
    comm_ = std::move(comm).value();
  }

  // Runs one AllReduce and checks it; returns false (after recording failures) on a mismatch.
  void Check(DataType type, ReduceOp op, size_t count, bool in_place) {
    const int rank = WorldRank(), nranks = WorldSize();
    const size_t elem = DataTypeSize(type);
    std::vector<char> send(count * elem), recv(count * elem);
    for (size_t i = 0; i < count; ++i) {
      EncodeAt(type, send.data(), i, ExactInput(type, op, rank, i));
      EncodeAt(type, recv.data(), i, 99);  // garbage the algorithm must overwrite
    }
    if (in_place) recv = send;
    CallOptions options;
    options.algorithm = std::get<0>(GetParam());
    const void* src = in_place ? recv.data() : send.data();
    absl::Status status = comm_->AllReduce(src, recv.data(), count, type, op, options);
    ASSERT_TRUE(AllRanks(status.ok())) << status;

    const std::string what = absl::StrCat(DataTypeName(type), " ", ReduceOpName(op), " count=", count,
                                          in_place ? " in-place" : " out-of-place");
    std::vector<char> expected(elem);
    for (size_t i = 0; i < count; ++i) {
      EncodeAt(type, expected.data(), 0, ExactReduction(type, op, nranks, i));
      ASSERT_EQ(std::memcmp(expected.data(), recv.data() + i * elem, elem), 0)
          << what << ": element " << i << " differs from the exact result";
    }
    const std::vector<char> mpi = MpiAllReduceOfExactInputs(type, op, count, MPI_COMM_WORLD);
    ASSERT_TRUE(mpi == recv) << what << ": differs from MPI_Allreduce";
  }

  std::unique_ptr<Communicator> comm_;
};

TEST_P(AllReduceTest, EveryTypeAndOpIsBitExact) {
  const size_t n = static_cast<size_t>(WorldSize());
  for (DataType type : AllDataTypes()) {
    for (ReduceOp op : AllReduceOps()) {
      for (size_t count : {size_t{0}, size_t{1}, n - 1, n + 1, size_t{2 * n + 3}}) {
        for (bool in_place : {false, true}) {
          Check(type, op, count, in_place);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

TEST_P(AllReduceTest, LargeOddCount) {
  for (DataType type : {DataType::kInt32, DataType::kFloat16, DataType::kFloat64}) {
    for (bool in_place : {false, true}) {
      Check(type, ReduceOp::kSum, 100003, in_place);
      if (HasFatalFailure()) return;
    }
  }
  Check(DataType::kBfloat16, ReduceOp::kMax, 100003, false);
}

std::vector<Param> Params() {
  std::vector<Param> out;
  for (Algorithm a : AlgorithmsFor(Collective::kAllReduce)) {
    for (ExecBackend b : {ExecBackend::kSerial, ExecBackend::kOpenMP}) {
      if (IsAvailable(b)) out.emplace_back(a, b);
    }
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Algorithms, AllReduceTest, ::testing::ValuesIn(Params()),
                         [](const ::testing::TestParamInfo<Param>& info) {
                           return absl::StrCat(AlgorithmName(std::get<0>(info.param)), "_",
                                               ExecBackendName(std::get<1>(info.param)));
                         });

}  // namespace
}  // namespace kcoll
