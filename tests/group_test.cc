// GroupStart/GroupEnd: a batch of small AllReduces of two types with an AllGather, a Broadcast and a Scan among them,
// every result exact after GroupEnd (and not before: the calls were queued), the small AllReduces of one type fused
// into one AllReduce (the counters say), nested groups running at the outermost GroupEnd only, and the errors: a
// GroupEnd without GroupStart, a nonblocking call inside a group, and a bad argument reported by GroupEnd naming
// its call.
#include <cstdint>
#include <vector>

#include "collectives/communicator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/make_communicator.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace testing {
namespace {

using ::testing::HasSubstr;

uint64_t AllReduceCalls(const Communicator& comm) {
  uint64_t calls = 0;
  for (Algorithm a : AllAlgorithms()) {
    if (const CollectiveCounts* e = comm.counters().Find(Collective::kAllReduce, a)) calls += e->calls;
  }
  return calls;
}

TEST(GroupTest, QueuedCallsRunAtGroupEndAndSmallAllReducesFuse) {
  auto comm = MakeSerialCommunicator();
  ASSERT_TRUE(AllRanks(comm != nullptr));
  const int n = WorldSize(), rank = WorldRank();
  // Ten double AllReduces of 1 to 10 elements, five int32 ones, an AllGather, a Broadcast and a Scan.
  std::vector<std::vector<double>> d_send, d_recv;
  std::vector<std::vector<int32_t>> i_data;
  for (int k = 0; k < 10; ++k) {
    d_send.emplace_back(k + 1, rank + k * 0.5);
    d_recv.emplace_back(k + 1, -1.0);
  }
  for (int k = 0; k < 5; ++k) i_data.emplace_back(3, rank * (k + 1));
  std::vector<int32_t> mine(2, rank), gathered(2 * n, -1), bcast(4, rank == 0 ? 7 : 0), prefix(1, -1);
  const int32_t one = 1;
  comm->ResetCounters();
  ASSERT_TRUE(comm->GroupStart().ok());
  for (int k = 0; k < 10; ++k) {
    ASSERT_TRUE(comm->AllReduce(d_send[k].data(), d_recv[k].data(), k + 1, DataType::kFloat64, ReduceOp::kSum).ok());
    if (k < 5) {
      ASSERT_TRUE(comm->AllReduce(i_data[k].data(), i_data[k].data(), 3, DataType::kInt32, ReduceOp::kMax).ok());
    }
  }
  ASSERT_TRUE(comm->AllGather(mine.data(), gathered.data(), 2, DataType::kInt32).ok());
  ASSERT_TRUE(comm->Broadcast(bcast.data(), bcast.data(), 4, DataType::kInt32, 0).ok());
  ASSERT_TRUE(comm->Scan(&one, prefix.data(), 1, DataType::kInt32, ReduceOp::kSum).ok());
  EXPECT_EQ(d_recv[0][0], -1.0) << "a grouped call ran before GroupEnd";
  EXPECT_EQ(gathered[0], -1);
  ASSERT_TRUE(AllRanks(comm->GroupEnd().ok()));
  for (int k = 0; k < 10; ++k) {
    for (double v : d_recv[k]) EXPECT_EQ(v, n * (n - 1) / 2.0 + n * k * 0.5) << k;
  }
  for (int k = 0; k < 5; ++k) {
    for (int32_t v : i_data[k]) EXPECT_EQ(v, (n - 1) * (k + 1)) << k;
  }
  for (int j = 0; j < 2 * n; ++j) EXPECT_EQ(gathered[j], j / 2);
  for (int32_t v : bcast) EXPECT_EQ(v, 7);
  EXPECT_EQ(prefix[0], rank + 1);
  // 15 AllReduces issued: one per type after fusion (each set fits one bucket).
  EXPECT_EQ(AllReduceCalls(*comm), 2u);
}

TEST(GroupTest, NestedGroupsRunAtTheOutermostEnd) {
  auto comm = MakeSerialCommunicator();
  ASSERT_TRUE(AllRanks(comm != nullptr));
  const int n = WorldSize();
  double a = 1, b = 2, ra = 0, rb = 0;
  ASSERT_TRUE(comm->GroupStart().ok());
  ASSERT_TRUE(comm->AllReduce(&a, &ra, 1, DataType::kFloat64, ReduceOp::kSum).ok());
  ASSERT_TRUE(comm->GroupStart().ok());
  ASSERT_TRUE(comm->AllReduce(&b, &rb, 1, DataType::kFloat64, ReduceOp::kSum).ok());
  ASSERT_TRUE(comm->GroupEnd().ok());
  EXPECT_EQ(ra, 0) << "the inner GroupEnd ran the calls";
  ASSERT_TRUE(AllRanks(comm->GroupEnd().ok()));
  EXPECT_EQ(ra, n);
  EXPECT_EQ(rb, 2.0 * n);
}

TEST(GroupTest, ErrorsAreNamed) {
  auto comm = MakeSerialCommunicator();
  ASSERT_TRUE(AllRanks(comm != nullptr));
  const int n = WorldSize();
  const absl::Status unopened = comm->GroupEnd();
  EXPECT_EQ(unopened.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(unopened.message(), HasSubstr("GroupEnd: no group is open"));
  double x = 1, y = 0;
  ASSERT_TRUE(comm->GroupStart().ok());
  Request inside = comm->IAllReduce(&x, &y, 1, DataType::kFloat64, ReduceOp::kSum);
  EXPECT_THAT(inside.Wait().message(), HasSubstr("a nonblocking call inside GroupStart/GroupEnd"));
  ASSERT_TRUE(comm->AllReduce(&x, &y, 1, DataType::kFloat64, ReduceOp::kSum).ok());
  ASSERT_TRUE(comm->AllGather(&x, nullptr, 1, DataType::kFloat64).ok());  // queued; refused when it runs
  const absl::Status ended = comm->GroupEnd();
  EXPECT_EQ(ended.code(), absl::StatusCode::kInvalidArgument) << ended;
  EXPECT_THAT(ended.message(), HasSubstr("GroupEnd: call 1 of the group (all_gather): all_gather: recvbuf is null"));
  EXPECT_EQ(y, n) << "the call before the refused one ran";
  // Nothing moved for the refused call: the communicator still works.
  ASSERT_TRUE(AllRanks(comm->AllReduce(&x, &y, 1, DataType::kFloat64, ReduceOp::kSum).ok()));
  EXPECT_EQ(y, n);
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
