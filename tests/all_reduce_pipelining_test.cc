// The pipelining knobs of the AllReduce algorithms: ring_pipelined with several channel counts and chunk sizes that
// divide neither the buffer nor the element size, and every algorithm with chunks small enough that its buffer is
// cut into many slices or chunks. Results are checked bit for bit against the exact result and MPI_Allreduce.
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collectives/algorithms/registry.h"
#include "collectives/communicator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/algorithm_param.h"
#include "tests/all_reduce_check.h"
#include "tests/matchers.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace testing {
namespace {

std::unique_ptr<Communicator> MakeCommunicator() {
  CommunicatorOptions options;
  options.backend = ExecBackend::kSerial;
  return Communicator::Create(MPI_COMM_WORLD, options).value();
}

TEST(RingPipelinedTest, ChannelsAndChunksThatDoNotDivideTheBuffer) {
  auto comm = MakeCommunicator();
  const size_t n = static_cast<size_t>(WorldSize());
  CallOptions call;
  call.algorithm = Algorithm::kRingPipelined;
  for (int nchannels : {0, 1, 2, 3, 7}) {
    // 4 bytes: one int32 per block; 6: not a whole number of 4-byte elements; 1: less than one element.
    for (size_t chunk_bytes : {size_t{0}, size_t{1}, size_t{4}, size_t{6}, size_t{100}}) {
      call.tuning.nchannels = nchannels;
      call.tuning.chunk_bytes = chunk_bytes;
      ASSERT_TRUE(AllReduceMatches(*comm, call, DataType::kInt32, ReduceOp::kSum, 7 * n + 3, false));
      ASSERT_TRUE(AllReduceMatches(*comm, call, DataType::kFloat16, ReduceOp::kSum, 101, true));
      ASSERT_TRUE(AllReduceMatches(*comm, call, DataType::kFloat64, ReduceOp::kMin, n - 1, false));
    }
  }
}

TEST(RingPipelinedTest, MoreChannelsThanElements) {
  auto comm = MakeCommunicator();
  CallOptions call;
  call.algorithm = Algorithm::kRingPipelined;
  call.tuning.nchannels = 32;
  for (size_t count : {size_t{0}, size_t{1}, size_t{5}, size_t{33}}) {
    ASSERT_TRUE(AllReduceMatches(*comm, call, DataType::kInt8, ReduceOp::kMax, count, true));
  }
}

TEST(RingPipelinedTest, RejectsChannelCountsOutOfRange) {
  auto comm = MakeCommunicator();
  std::vector<int> data(16, 1);
  CallOptions call;
  call.algorithm = Algorithm::kRingPipelined;
  call.tuning.nchannels = 33;
  absl::Status s = comm->AllReduce(data.data(), data.data(), data.size(), DataType::kInt32, ReduceOp::kSum, call);
  ASSERT_TRUE(AllRanks(absl::IsInvalidArgument(s))) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("nchannels 33"));
  call.tuning.nchannels = -1;
  s = comm->AllReduce(data.data(), data.data(), data.size(), DataType::kInt32, ReduceOp::kSum, call);
  ASSERT_TRUE(AllRanks(absl::IsInvalidArgument(s))) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("nchannels -1"));
}

class SmallChunksTest : public ::testing::TestWithParam<Algorithm> {};

// Every algorithm reads chunk_bytes (the ones that do not pipeline ignore it): one-element and odd-sized chunks
// give the pipelined schedules many slices, with a short last one.
TEST_P(SmallChunksTest, ManySlicesAreBitExact) {
  auto comm = MakeCommunicator();
  const size_t n = static_cast<size_t>(WorldSize());
  CallOptions call;
  call.algorithm = GetParam();
  for (size_t chunk_bytes : {size_t{2}, size_t{24}, size_t{100}}) {
    call.tuning.chunk_bytes = chunk_bytes;
    ASSERT_TRUE(AllReduceMatches(*comm, call, DataType::kInt32, ReduceOp::kSum, 3 * n + 1, false));
    ASSERT_TRUE(AllReduceMatches(*comm, call, DataType::kFloat16, ReduceOp::kSum, 257, true));
    ASSERT_TRUE(AllReduceMatches(*comm, call, DataType::kBfloat16, ReduceOp::kMax, 1000, false));
    ASSERT_TRUE(AllReduceMatches(*comm, call, DataType::kInt64, ReduceOp::kProd, 129, true));
  }
}

INSTANTIATE_TEST_SUITE_P(Algorithms, SmallChunksTest,
                         ::testing::ValuesIn(TransferAlgorithmsFor(Collective::kAllReduce)), AlgorithmParamName);

}  // namespace
}  // namespace testing
}  // namespace kcoll
