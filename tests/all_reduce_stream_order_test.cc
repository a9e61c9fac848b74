// The AllReduce schedules on a stream-ordered transport (Transport::StreamOrdered, as NCCL): MPI underneath, but
// every Wait completes every transfer posted so far, which is what a stream that runs each batch of transfers as a
// unit amounts to, and tags are dropped, so that as in NCCL the n-th send from one rank to another meets the n-th
// receive posted for it. A schedule that posts a receive ahead of the step it belongs to deadlocks here (its peer's
// matching send is only posted after a wait that needs this rank's later sends), one whose ranks post concurrent
// streams (channels, trees, directions) in different orders mixes them up, and one that relies on waiting for a
// send before reusing its buffer is exercised without those waits. Results are checked bit for bit against the
// exact reduction.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/topology.h"
#include "collectives/algorithms/registry.h"
#include "collectives/kernels/backend.h"
#include "collectives/transport/mpi/mpi_transport.h"
#include "gtest/gtest.h"
#include "tests/algorithm_param.h"
#include "tests/exact_values.h"
#include "tests/mpi_test_env.h"
#include "tests/stream_ordered_mpi.h"

namespace kcoll {
namespace testing {
namespace {

class StreamOrderTest : public ::testing::TestWithParam<Algorithm> {
 protected:
  void SetUp() override {
    absl::StatusOr<StreamOrderedRig> rig = MakeStreamOrderedRig();
    ASSERT_TRUE(rig.ok()) << rig.status();
    rig_ = *std::move(rig);
  }

  // One AllReduce (sum: the algorithms themselves never divide) through the algorithm directly; true on every rank
  // iff the result is exact on every rank.
  bool Matches(DataType type, size_t count, bool in_place, size_t chunk_bytes) {
    const int rank = WorldRank(), n = WorldSize();
    const size_t elem = DataTypeSize(type);
    std::vector<char> send(count * elem), recv(count * elem, 0);
    for (size_t i = 0; i < count; ++i) EncodeAt(type, send.data(), i, ExactInput(type, ReduceOp::kSum, rank, i));
    if (in_place) recv = send;
    CollectiveArgs args;
    args.send = in_place ? recv.data() : send.data();
    args.recv = recv.data();
    args.count = count;
    args.type = type;
    args.op = ReduceOp::kSum;
    args.options.chunk_bytes = chunk_bytes;
    args.options.nchannels = GetParam() == Algorithm::kRingPipelined ? 2 : 0;
    Resources res{*rig_.transport, *rig_.kernels, rig_.topology};
    const absl::Status s = FindAlgorithm(Collective::kAllReduce, GetParam()).value()(args, res);
    bool ok = s.ok();
    std::vector<char> expected(elem);
    for (size_t i = 0; ok && i < count; ++i) {
      EncodeAt(type, expected.data(), 0, ExactReduction(type, ReduceOp::kSum, n, i));
      ok = std::memcmp(expected.data(), recv.data() + i * elem, elem) == 0;
    }
    if (!ok) {
      ADD_FAILURE() << AlgorithmName(GetParam()) << " " << DataTypeName(type) << " count=" << count
                    << (in_place ? " in place" : "") << " chunk_bytes=" << chunk_bytes << ": " << s;
    }
    return AllRanks(ok);
  }

  StreamOrderedRig rig_;
};

TEST_P(StreamOrderTest, NoReceivePostedAheadAndExactResults) {
  const size_t n = static_cast<size_t>(WorldSize());
  for (size_t chunk_bytes : {size_t{0}, size_t{8}, size_t{100}}) {
    ASSERT_TRUE(Matches(DataType::kInt32, 0, false, chunk_bytes));
    ASSERT_TRUE(Matches(DataType::kInt32, 1, true, chunk_bytes));
    ASSERT_TRUE(Matches(DataType::kInt32, 5 * n + 3, false, chunk_bytes));
    ASSERT_TRUE(Matches(DataType::kFloat16, 1001, true, chunk_bytes));
    ASSERT_TRUE(Matches(DataType::kFloat64, 333, false, chunk_bytes));
  }
}

INSTANTIATE_TEST_SUITE_P(Algorithms, StreamOrderTest,
                         ::testing::ValuesIn(TransferAlgorithmsFor(Collective::kAllReduce)), AlgorithmParamName);

}  // namespace
}  // namespace testing
}  // namespace kcoll
