// Every collective other than AllReduce (all_reduce_stream_order_test.cc has those) on a stream-ordered transport
// (tests/stream_ordered_mpi.h: NCCL's matching and completion rules over MPI), for every registered algorithm: in
// place and out of place, roots first and last, counts 0, 1, 5n+3 and one whose messages are far above MPI's eager
// limit (so a receive posted ahead of its step, or ranks posting concurrent streams in different orders, deadlock
// or mix data up here as they would over NCCL). Results are compared bit for bit with collective_reference.h.
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/topology.h"
#include "collectives/algorithms/registry.h"
#include "collectives/kernels/backend.h"
#include "collectives/transport/mpi/mpi_transport.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/collective_reference.h"
#include "tests/mpi_test_env.h"
#include "tests/stream_ordered_mpi.h"

namespace kcoll {
namespace testing {
namespace {

constexpr size_t kAboveEagerLimit = 16411;  // int32 elements per block: 64 KiB, an odd count

using Param = std::tuple<Collective, Algorithm>;

std::vector<Param> AllButAllReduce() {
  std::vector<Param> out;
  for (Collective c : {Collective::kReduceScatter, Collective::kAllGather, Collective::kBroadcast, Collective::kReduce,
                       Collective::kAllToAll, Collective::kGather, Collective::kScatter, Collective::kSendRecv,
                       Collective::kBarrier}) {
    for (Algorithm a : TransferAlgorithmsFor(c)) out.emplace_back(c, a);
  }
  return out;
}

class StreamOrderAllTest : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    absl::StatusOr<StreamOrderedRig> rig = MakeStreamOrderedRig();
    ASSERT_TRUE(rig.ok()) << rig.status();
    rig_ = *std::move(rig);
  }

  // One call through the algorithm directly; true on every rank iff every rank's result is exact.
  bool Matches(DataType type, size_t count, bool in_place, int root) {
    const auto [c, algorithm] = GetParam();
    const int rank = WorldRank(), n = WorldSize();
    const size_t elem = DataTypeSize(type);
    const ReduceOp op = ReduceOp::kSum;
    const std::vector<char> input = SendBuffer(c, type, op, count, root, rank, n);
    const size_t recv_elems = RecvElements(c, count, root, rank, n);
    // In place, both live in one buffer at NCCL's offsets; out of place, in two.
    const size_t block = count * elem;
    std::vector<char> buffer(std::max<size_t>(count * n, std::max(input.size() / elem, recv_elems)) * elem + 1, 0x5a);
    std::vector<char> separate_send(input), separate_recv(recv_elems * elem + 1, 0x5a);
    char* send = separate_send.data();
    char* recv = separate_recv.data();
    if (in_place) {
      if (c == Collective::kAllGather || c == Collective::kGather) {
        recv = buffer.data();
        send = recv + rank * block;
      } else if (c == Collective::kReduceScatter || c == Collective::kScatter) {
        send = buffer.data();
        recv = send + rank * block;
      } else {
        send = recv = buffer.data();
      }
      if (!input.empty()) std::memcpy(send, input.data(), input.size());
    }
    CollectiveArgs args{c, send, recv, count, type, op, root, {}};
    args.options.chunk_bytes = count > 1000 ? 8192 : 0;  // pipelined schedules: several chunks in flight
    Resources res{*rig_.transport, *rig_.kernels, rig_.topology};
    const absl::Status s = FindAlgorithm(c, algorithm).value()(args, res);
    bool ok = s.ok();
    const std::vector<char> expected = ExpectedRecv(c, type, op, count, root, rank, n);
    if (ok && !expected.empty()) ok = std::memcmp(expected.data(), recv, expected.size()) == 0;
    if (!ok) {
      ADD_FAILURE() << CollectiveName(c) << " (" << AlgorithmName(algorithm) << ") " << DataTypeName(type)
                    << " count=" << count << (in_place ? " in place" : "") << " root=" << root << ": " << s;
    }
    return AllRanks(ok);
  }

  StreamOrderedRig rig_;
};

TEST_P(StreamOrderAllTest, NoReceivePostedAheadAndExactResults) {
  const int n = WorldSize();
  const Collective c = std::get<0>(GetParam());
  const bool rooted =
      c == Collective::kBroadcast || c == Collective::kReduce || c == Collective::kGather || c == Collective::kScatter;
  const std::vector<int> roots = rooted ? std::vector<int>{0, n - 1} : std::vector<int>{0};
  const size_t n_elems = static_cast<size_t>(n);
  for (int root : roots) {
    for (bool in_place : {false, true}) {
      for (size_t count : {size_t{0}, size_t{1}, 5 * n_elems + 3, kAboveEagerLimit}) {
        ASSERT_TRUE(Matches(DataType::kInt32, count, in_place, root));
      }
      if (c == Collective::kReduceScatter || c == Collective::kReduce) {
        ASSERT_TRUE(Matches(DataType::kFloat16, 1001, in_place, root));
      }
    }
  }
}

// The schedules that read what they received on the host (base/names.h NeedsHostRanks) refuse a stream-ordered
// transport with a message that says why and what to use, before any transfer: every rank returns at once.
TEST(StreamOrderHostRanks, SchedulesThatReadReceivedSizesAreRefused) {
  absl::StatusOr<StreamOrderedRig> rig = MakeStreamOrderedRig();
  ASSERT_TRUE(rig.ok()) << rig.status();
  const int n = WorldSize();
  int refused = 0;
  for (Collective c : AllCollectives()) {
    for (Algorithm a : TransferAlgorithmsFor(c)) {
      if (!NeedsHostRanks(c, a)) continue;
      std::vector<size_t> counts(n, 1), displs(n);
      for (int j = 0; j < n; ++j) displs[j] = j;
      std::vector<int32_t> send(n, 1), recv(n, 0);
      CollectiveArgs args{c, send.data(), recv.data(), 0, DataType::kInt32, ReduceOp::kSum, 0, {}};
      args.send_counts = args.recv_counts = counts.data();
      args.send_displs = args.recv_displs = displs.data();
      Resources res{*rig->transport, *rig->kernels, rig->topology};
      const absl::Status s = FindAlgorithm(c, a).value()(args, res);
      EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition)
          << CollectiveName(c) << " (" << AlgorithmName(a) << ")";
      EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("host ranks only")) << s;
      ++refused;
    }
  }
  EXPECT_GT(refused, 0) << "no schedule needs host ranks: this test checks nothing";
}

INSTANTIATE_TEST_SUITE_P(Collectives, StreamOrderAllTest, ::testing::ValuesIn(AllButAllReduce()),
                         [](const ::testing::TestParamInfo<Param>& info) {
                           return absl::StrCat(CollectiveName(std::get<0>(info.param)), "_",
                                               AlgorithmName(std::get<1>(info.param)));
                         });

}  // namespace
}  // namespace testing
}  // namespace kcoll
