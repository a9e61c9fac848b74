// The algorithms themselves (called through the registry, below the Communicator) on a topology whose ring order
// is not rank order: nodes of interleaved ranks ({0, 2, 4, ...} and {1, 3, 5, ...}), so the ring runs 0 2 4 .. 1 3
// 5 ... Ring schedules must still deliver rank r's block to rank r, and chains and trees rooted anywhere must still
// reach every rank. One type (int32, sum) at count nranks + 1, every root, checked against the expected values.
#include <memory>
#include <vector>

#include "base/topology.h"
#include "collectives/algorithms/engines/rooted_group.h"
#include "collectives/algorithms/registry.h"
#include "collectives/kernels/backend.h"
#include "collectives/transport/mpi/mpi_transport.h"
#include "tests/collective_test_util.h"

namespace kcoll {
namespace testing {
namespace {

class RingOrderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto transport = MpiTransport::Create(MPI_COMM_WORLD);
    ASSERT_TRUE(transport.ok()) << transport.status();
    transport_ = std::move(transport).value();
    auto kernels = MakeKernels(ExecBackend::kSerial);
    ASSERT_TRUE(kernels.ok()) << kernels.status();
    kernels_ = std::move(kernels).value();
    std::vector<int> labels(n_);
    for (int r = 0; r < n_; ++r) labels[r] = r % 2;
    topology_ = MakeTopology(rank_, labels, /*emulated=*/true);
  }

  // Runs `algorithm` for `collective` directly; OK on every rank or a failure.
  bool Run(Algorithm algorithm, const CollectiveArgs& args) {
    auto fn = FindAlgorithm(args.collective, algorithm);
    EXPECT_TRUE(fn.ok()) << fn.status();
    if (!AllRanks(fn.ok())) return false;
    Resources res{*transport_, *kernels_, topology_};
    const absl::Status status = (*fn)(args, res);
    EXPECT_TRUE(status.ok()) << status;
    return AllRanks(status.ok());
  }

  CollectiveArgs Args(Collective collective, const void* send, void* recv, int root = 0) const {
    CollectiveArgs args;
    args.collective = collective;
    args.send = send;
    args.recv = recv;
    args.count = count_;
    args.type = DataType::kInt32;
    args.op = ReduceOp::kSum;
    args.root = root;
    args.options.chunk_bytes = 8;  // chains in stages of two elements
    return args;
  }

  std::vector<int32_t> Pattern(int rank, size_t count, size_t first = 0) const {
    std::vector<int32_t> v(count);
    for (size_t i = 0; i < count; ++i) v[i] = static_cast<int32_t>(PatternValue(DataType::kInt32, rank, first + i));
    return v;
  }

  const int rank_ = WorldRank();
  const int n_ = WorldSize();
  const size_t count_ = static_cast<size_t>(WorldSize()) + 1;
  std::unique_ptr<MpiTransport> transport_;
  std::unique_ptr<Kernels> kernels_;
  Topology topology_;
};

TEST_F(RingOrderTest, TheRingIsNotRankOrder) {
  if (n_ >= 3) {
    EXPECT_NE(topology_.ring, RankOrder(n_)) << topology_.Describe();
  }
}

TEST_F(RingOrderTest, ReduceScatterAndAllGather) {
  const size_t c = count_;
  std::vector<int32_t> send(c * n_);
  for (size_t i = 0; i < send.size(); ++i)
    send[i] = static_cast<int32_t>(ExactInput(DataType::kInt32, ReduceOp::kSum, rank_, i));
  for (Algorithm a : TransferAlgorithmsFor(Collective::kReduceScatter)) {
    std::vector<int32_t> recv(c, -1);
    ASSERT_TRUE(Run(a, Args(Collective::kReduceScatter, send.data(), recv.data())));
    for (size_t i = 0; i < c; ++i) {
      EXPECT_EQ(recv[i], ExactReduction(DataType::kInt32, ReduceOp::kSum, n_, rank_ * c + i))
          << AlgorithmName(a) << " element " << i;
    }
  }
  const std::vector<int32_t> mine = Pattern(rank_, c);
  for (Algorithm a : TransferAlgorithmsFor(Collective::kAllGather)) {
    std::vector<int32_t> recv(c * n_, -1);
    ASSERT_TRUE(Run(a, Args(Collective::kAllGather, mine.data(), recv.data())));
    for (int r = 0; r < n_; ++r) {
      EXPECT_EQ(std::vector<int32_t>(recv.begin() + r * c, recv.begin() + (r + 1) * c), Pattern(r, c))
          << AlgorithmName(a) << " block " << r;
    }
  }
}

TEST_F(RingOrderTest, BroadcastAndReduceFromEveryRoot) {
  for (int root = 0; root < n_; ++root) {
    const std::vector<int32_t> data = Pattern(root, count_);
    for (Algorithm a : TransferAlgorithmsFor(Collective::kBroadcast)) {
      std::vector<int32_t> recv(count_, -1);
      ASSERT_TRUE(Run(a, Args(Collective::kBroadcast, data.data(), recv.data(), root)));
      EXPECT_EQ(recv, data) << AlgorithmName(a) << " root " << root;
    }
    std::vector<int32_t> send(count_);
    for (size_t i = 0; i < count_; ++i)
      send[i] = static_cast<int32_t>(ExactInput(DataType::kInt32, ReduceOp::kSum, rank_, i));
    for (Algorithm a : TransferAlgorithmsFor(Collective::kReduce)) {
      std::vector<int32_t> recv(count_, -1);
      ASSERT_TRUE(Run(a, Args(Collective::kReduce, send.data(), recv.data(), root)));
      for (size_t i = 0; i < count_; ++i) {
        const int32_t want = rank_ == root ? ExactReduction(DataType::kInt32, ReduceOp::kSum, n_, i) : -1;
        EXPECT_EQ(recv[i], want) << AlgorithmName(a) << " root " << root << " element " << i;
      }
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
