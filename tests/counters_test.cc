// The counting decorators: every primitive is counted once, with the right bytes, split by the peer's node; failed
// primitives are not counted; and the summaries and descriptions read the counts back.
#include "collectives/counters.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collectives/kernels/kernels.h"
#include "collectives/observability/counting.h"
#include "collectives/observability/describe.h"
#include "collectives/transport/transport.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/matchers.h"

namespace kcoll {
namespace {

// Accepts transfers to peers 0..size-1 and records them; fails others.
class FakeTransport : public Transport {
 public:
  FakeTransport(int rank, int size) : rank_(rank), size_(size) {}
  absl::string_view name() const override { return "fake"; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  bool CanReach(MemoryKind memory) const override { return memory == MemoryKind::kHost; }
  absl::StatusOr<Request> Send(int peer, const void*, size_t bytes, int) override { return Post(peer, bytes); }
  absl::StatusOr<Request> Recv(int peer, void*, size_t bytes, int) override { return Post(peer, bytes); }
  absl::Status Wait(Request) override { return absl::OkStatus(); }
  absl::Status WaitAll() override {
    ++wait_alls;
    return absl::OkStatus();
  }
  int posted = 0;
  int wait_alls = 0;

 private:
  absl::StatusOr<Request> Post(int peer, size_t) {
    if (peer < 0 || peer >= size_) return absl::InvalidArgumentError(absl::StrCat("peer ", peer));
    return Request{posted++};
  }
  int rank_, size_;
};

class FakeKernels : public Kernels {
 public:
  absl::string_view name() const override { return "fake"; }
  MemoryKind memory() const override { return MemoryKind::kHost; }
  absl::Status Reduce(ReduceOp, DataType, void*, const void*, const void*, size_t) override { return Result(); }
  absl::Status FoldInOrder(ReduceOp, DataType, void*, const void*, size_t, size_t, int) override { return Result(); }
  absl::Status Copy(void*, const void*, size_t, size_t) override { return Result(); }
  absl::Status Divide(DataType, void*, size_t, int) override { return Result(); }
  absl::Status ExactFold(DataType, void*, const void*, size_t, size_t, int, int) override { return Result(); }
  absl::Status ExactSumOfTwo(DataType, void*, const void*, const void*, size_t) override { return Result(); }
  void Fence() override {}
  absl::StatusOr<void*> Scratch(int, size_t) override { return static_cast<void*>(buffer_); }
  bool fail = false;

 private:
  absl::Status Result() const { return fail ? absl::InternalError("kernel failed") : absl::OkStatus(); }
  char buffer_[8];
};

TEST(CountingTransport, SplitsBytesByThePeersNode) {
  // 4 ranks, 2 per node; this is rank 1 (node 0).
  const Topology topology = MakeEmulatedTopology(/*rank=*/1, 4, 2);
  PrimitiveCounts counts;
  auto fake = std::make_unique<FakeTransport>(1, 4);
  FakeTransport* inner = fake.get();
  CountingTransport t(std::move(fake), topology, counts);
  EXPECT_EQ(t.name(), "fake");
  EXPECT_EQ(t.size(), 4);
  ASSERT_TRUE(t.Send(0, nullptr, 100, 0).ok());  // same node
  ASSERT_TRUE(t.Send(2, nullptr, 30, 0).ok());   // other node
  ASSERT_TRUE(t.Send(1, nullptr, 5, 0).ok());    // itself: intra
  ASSERT_TRUE(t.Recv(3, nullptr, 7, 0).ok());
  EXPECT_FALSE(t.Send(9, nullptr, 1000, 0).ok());  // rejected by the transport: not counted
  ASSERT_TRUE(t.WaitAll().ok());
  EXPECT_EQ(inner->wait_alls, 1);
  // {calls, bytes, intra-node bytes, inter-node bytes} of the sends and the receives; no kernel calls.
  EXPECT_TRUE(counts == (PrimitiveCounts{/*send=*/{3, 135, 105, 30}, /*recv=*/{1, 7, 0, 7}}));
}

TEST(CountingKernels, CountsBytesWritten) {
  PrimitiveCounts counts;
  auto fake = std::make_unique<FakeKernels>();
  FakeKernels* inner = fake.get();
  CountingKernels k(std::move(fake), counts);
  ASSERT_TRUE(k.Reduce(ReduceOp::kSum, DataType::kFloat64, nullptr, nullptr, nullptr, 10).ok());
  ASSERT_TRUE(k.Reduce(ReduceOp::kMax, DataType::kInt8, nullptr, nullptr, nullptr, 3).ok());
  ASSERT_TRUE(k.Copy(nullptr, nullptr, 64).ok());
  ASSERT_TRUE(k.Divide(DataType::kFloat32, nullptr, 4, 2).ok());
  // A fold of 4 terms of 5 floats: one call that combines 3 x 20 bytes.
  ASSERT_TRUE(k.FoldInOrder(ReduceOp::kSum, DataType::kFloat32, nullptr, nullptr, 5, 5, 4).ok());
  // An exact sum of 3 terms of 2 doubles (the third's window only): 2 x 16 bytes more.
  ASSERT_TRUE(k.ExactFold(DataType::kFloat64, nullptr, nullptr, 2, 2, 4, 3).ok());
  inner->fail = true;
  EXPECT_FALSE(k.Copy(nullptr, nullptr, 1000).ok());
  EXPECT_FALSE(k.FoldInOrder(ReduceOp::kSum, DataType::kFloat32, nullptr, nullptr, 5, 5, 4).ok());
  // {calls, bytes written} of the reductions, copies and divisions; no transfers.
  EXPECT_TRUE(counts ==
              (PrimitiveCounts{/*send=*/{}, /*recv=*/{}, /*reduce=*/{4, 175}, /*copy=*/{1, 64}, /*divide=*/{1, 16}}));
}

TEST(PrimitiveCounts, AddAndSubtract) {
  PrimitiveCounts a, b;
  a.send = {2, 10, 4, 6};
  a.copy = {1, 8};
  b.send = {1, 3, 3, 0};
  b.reduce = {5, 50};
  PrimitiveCounts sum = a;
  sum += b;
  EXPECT_EQ(sum.send.bytes, 13u);
  EXPECT_EQ(sum.reduce.calls, 5u);
  sum -= b;
  EXPECT_TRUE(sum == a);
}

TEST(PrimitiveCounts, AddTimesAddsEveryFieldTimesTheCount) {
  PrimitiveCounts one;
  one.send = {1, 8, 8, 0};
  one.recv = {1, 8, 0, 8};
  one.reduce = {1, 8};
  one.copy = {2, 16};
  one.divide = {3, 24};
  PrimitiveCounts by_times = one, by_adding = one;
  by_times.AddTimes(one, 1000);
  for (int i = 0; i < 1000; ++i) by_adding += one;
  EXPECT_TRUE(by_times == by_adding);
  EXPECT_EQ(by_times.divide.bytes, 24u * 1001);
  by_times.AddTimes(one, 0);
  EXPECT_TRUE(by_times == by_adding);
}

TEST(NcclTestsBytes, FollowsNcclTestsSizes) {
  EXPECT_EQ(NcclTestsBytes(Collective::kAllReduce, 10, 4, 8), 40u);
  EXPECT_EQ(NcclTestsBytes(Collective::kBroadcast, 10, 4, 8), 40u);
  EXPECT_EQ(NcclTestsBytes(Collective::kReduceScatter, 10, 4, 8), 320u);
  EXPECT_EQ(NcclTestsBytes(Collective::kAllGather, 10, 2, 3), 60u);
  EXPECT_EQ(NcclTestsBytes(Collective::kAllToAll, 1, 8, 4), 32u);
  EXPECT_EQ(NcclTestsBytes(Collective::kBarrier, 0, 1, 4), 0u);
}

TEST(SummarizeTraffic, AveragesPerCallAndComputesTheInterNodeShare) {
  Counters c;
  CollectiveCounts ring{Collective::kAllReduce, Algorithm::kRing};
  ring.calls = 4;
  ring.bytes = 400;
  ring.seconds = 2;
  ring.primitives.send = {24, 600, 450, 150};
  ring.primitives.recv = {24, 600, 300, 300};
  c.Entry(Collective::kAllReduce, Algorithm::kRing) = ring;
  CollectiveCounts& tree = c.Entry(Collective::kAllReduce, Algorithm::kTree);
  tree.calls = 1;
  tree.bytes = 100;
  tree.primitives.send = {2, 200, 0, 200};
  c.Entry(Collective::kBroadcast, Algorithm::kTree).calls = 7;
  EXPECT_EQ(c.Entry(Collective::kAllReduce, Algorithm::kRing).calls, 4u);  // found, not added
  EXPECT_EQ(c.collectives.size(), 3u);
  EXPECT_EQ(c.Find(Collective::kAllReduce, Algorithm::kTree)->bytes, 100u);
  EXPECT_EQ(c.Find(Collective::kReduce, Algorithm::kTree), nullptr);

  const TrafficPerCall r = SummarizeTraffic(c, Collective::kAllReduce, Algorithm::kRing);
  EXPECT_EQ(r.calls, 4u);
  EXPECT_DOUBLE_EQ(r.payload_bytes, 100);
  EXPECT_DOUBLE_EQ(r.sent_bytes, 150);
  EXPECT_DOUBLE_EQ(r.intra_node_sent_bytes, 112.5);
  EXPECT_DOUBLE_EQ(r.inter_node_sent_bytes, 37.5);
  EXPECT_DOUBLE_EQ(r.received_bytes, 150);
  EXPECT_DOUBLE_EQ(r.inter_node_share, 0.25);
  EXPECT_DOUBLE_EQ(r.seconds, 0.5);
  const TrafficPerCall any = SummarizeTraffic(c, Collective::kAllReduce);
  EXPECT_EQ(any.calls, 5u);
  EXPECT_DOUBLE_EQ(any.sent_bytes, 160);
  EXPECT_DOUBLE_EQ(any.inter_node_share, 350.0 / 800.0);
  EXPECT_EQ(SummarizeTraffic(c, Collective::kReduce).calls, 0u);
  EXPECT_DOUBLE_EQ(SummarizeTraffic(c, Collective::kBroadcast).inter_node_share, 0);
}

TEST(DescribeCounters, PrintsEveryPrimitive) {
  Topology t = MakeEmulatedTopology(0, 2, 1);
  t.comm_id = 0xabc;
  Counters c;
  CollectiveCounts& e = c.Entry(Collective::kAllReduce, Algorithm::kRing);
  e.calls = 2;
  e.bytes = 64;
  e.primitives.send = {4, 64, 0, 64};
  c.total = e.primitives;
  c.total.copy = {1, 8};
  const std::vector<std::string> lines = DescribeCounters(t, c);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0],
            "comm 0x0000000000000abc counters all_reduce/ring calls 2 bytes 64 time 0 s | send calls 4 bytes 64 "
            "intra 0 inter 64 | recv calls 0 bytes 0 intra 0 inter 0 | reduce calls 0 bytes 0 | copy calls 0 bytes 0 "
            "| divide calls 0 bytes 0");
  EXPECT_THAT(lines[1], HasSubstr("counters total | send calls 4 bytes 64 intra 0 inter 64"));
  EXPECT_THAT(lines[1], HasSubstr("copy calls 1 bytes 8"));
  const nlohmann::json j = CountersToJson(c);
  EXPECT_EQ(j["collectives"][0]["collective"], "all_reduce");
  EXPECT_EQ(j["collectives"][0]["algorithm"], "ring");
  EXPECT_EQ(j["collectives"][0]["primitives"]["send"]["inter_node_bytes"], 64);
  EXPECT_EQ(j["total"]["copy"]["bytes"], 8);
}

}  // namespace
}  // namespace kcoll
