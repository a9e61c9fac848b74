// The inline AllReduce (collectives/algorithms/all_reduce/inline.cc) and the rule that sends small AllReduces to it.
//
// On one node over shared memory: every type and op, counts from 1 to the most a rank's lines hold, in place and out
// of place, bit for bit against the exact reference and against the vendor MPI; thousands of calls in a row whose
// inputs change each call (the lines alternate by call parity, with no barrier between calls); `auto` taking it up
// to its limit and not above (the counters say), the limit measured at creation the same on every rank unless
// KCOLL_INLINE_MAX_BYTES pins it; ranks calling with different counts refused on every
// rank; a stalled rank named under a timeout. Elsewhere (KCOLL_TRANSPORT=mpi, emulated nodes, one rank) asking for
// it fails with FailedPrecondition and `auto` never takes it.
#include <sched.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "collectives/communicator.h"
#include "collectives/inline_path.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/collective_reference.h"
#include "tests/collective_test_util.h"
#include "tests/make_communicator.h"
#include "tests/matchers.h"
#include "tests/mpi_reference.h"
#include "tests/mpi_test_env.h"
#include "tests/scoped_env.h"

namespace kcoll {
namespace testing {
namespace {

constexpr size_t kMaxInlineBytes = 4096;  // InlineExchange::kMaxPayloadBytes, as the algorithm's error states it

// Whether this run's communicators have the inline path: every rank on one node over shared memory.
bool InlineAvailable() { return WorldSize() > 1 && OneNodeOverSharedMemory(); }

uint64_t CallsOf(const Communicator& comm, Algorithm algorithm) {
  const CollectiveCounts* entry = comm.counters().Find(Collective::kAllReduce, algorithm);
  return entry == nullptr ? 0 : entry->calls;
}

// One AllReduce asked of `algorithm`, checked bit for bit against the reference and the vendor MPI.
void ExpectExact(Communicator& comm, DataType type, ReduceOp op, size_t count, bool in_place, Algorithm algorithm) {
  const int rank = WorldRank(), n = WorldSize();
  const std::string name = CaseName(type, &op, count, in_place);
  const std::vector<char> send = SendBuffer(Collective::kAllReduce, type, op, count, 0, rank, n);
  std::vector<char> recv = SentinelBuffer(type, count);
  if (in_place) recv = send;
  CallOptions options;
  options.algorithm = algorithm;
  const absl::Status status =
      comm.AllReduce(in_place ? recv.data() : send.data(), recv.data(), count, type, op, options);
  const std::vector<char> mpi = MpiAllReduceOfExactInputs(type, op, count, MPI_COMM_WORLD);
  ASSERT_TRUE(status.ok()) << name << ": " << status;
  const std::vector<char> expected = ExpectedRecv(Collective::kAllReduce, type, op, count, 0, rank, n);
  EXPECT_TRUE(SameElements(type, expected, recv.data(), count)) << name;
  EXPECT_EQ(std::memcmp(mpi.data(), recv.data(), recv.size()), 0) << name << ": differs from the vendor MPI";
}

TEST(InlineAllReduce, EveryTypeAndOpIsBitExact) {
  if (!InlineAvailable()) GTEST_SKIP() << "needs 2 or more ranks on one node over shared memory";
  auto comm = MakeSerialCommunicator();
  ASSERT_TRUE(AllRanks(comm != nullptr));
  for (DataType type : AllDataTypes()) {
    const size_t most = kMaxInlineBytes / DataTypeSize(type);
    for (ReduceOp op : AllReduceOps()) {
      for (size_t count : {size_t{1}, size_t{2}, size_t{3}, size_t{5}, size_t{7}, most - 1, most}) {
        for (bool in_place : {false, true}) ExpectExact(*comm, type, op, count, in_place, Algorithm::kInline);
      }
    }
    ASSERT_TRUE(AllRanks(!HasFailure())) << DataTypeName(type);
  }
  EXPECT_GT(CallsOf(*comm, Algorithm::kInline), 0u);
}

TEST(InlineAllReduce, ManyCallsInARowEachSeeTheirOwnInputs) {
  if (!InlineAvailable()) GTEST_SKIP() << "needs 2 or more ranks on one node over shared memory";
  auto comm = MakeSerialCommunicator();
  ASSERT_TRUE(AllRanks(comm != nullptr));
  const int rank = WorldRank(), n = WorldSize();
  // Call i: rank r contributes i * (r + 1), so the sum is i * n (n + 1) / 2; a stale line from call i - 2 (the same
  // parity) or i - 1 would give another value.
  int wrong = 0;
  for (int64_t i = 0; i < 5000; ++i) {
    int64_t mine[3] = {i * (rank + 1), -i, rank == 0 ? i : 0};
    int64_t out[3] = {0, 0, 0};
    const absl::Status status = comm->AllReduce(mine, out, 3, DataType::kInt64, ReduceOp::kSum);
    ASSERT_TRUE(status.ok()) << "call " << i << ": " << status;
    if (out[0] != i * n * (n + 1) / 2 || out[1] != -i * n || out[2] != i) ++wrong;
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(CallsOf(*comm, Algorithm::kInline), 5000u);
}

// The three spellings of an AllReduce (the method, Call by name, Call with a descriptor) take the same lane, its
// repeats included: ranks spelling the same calls differently, each rank changing its spelling from call to call,
// must get every call's own sums, stay in step with the other collectives, and count each call once; a repeat queued
// in a group runs at GroupEnd.
TEST(InlineAllReduce, EverySpellingOfARepeatedCallTakesTheLane) {
  if (!InlineAvailable()) GTEST_SKIP() << "needs 2 or more ranks on one node over shared memory";
  auto comm = MakeSerialCommunicator();
  ASSERT_TRUE(AllRanks(comm != nullptr));
  const int rank = WorldRank(), n = WorldSize();
  constexpr int kCalls = 300;
  int wrong = 0;
  for (int64_t i = 0; i < kCalls; ++i) {
    int64_t mine[2] = {i * (rank + 1), rank == 0 ? i : 0};
    int64_t out[2] = {0, 0};
    absl::Status status;
    switch ((i + rank) % 3) {
      case 0:
        status = comm->AllReduce(mine, out, 2, DataType::kInt64, ReduceOp::kSum);
        break;
      case 1:
        status = comm->Call(Collective::kAllReduce, mine, out, 2, DataType::kInt64, ReduceOp::kSum, /*root=*/0);
        break;
      default:
        status = comm->Call(CollectiveCall::AllReduce(mine, out, 2, DataType::kInt64, ReduceOp::kSum));
        break;
    }
    ASSERT_TRUE(status.ok()) << "call " << i << ": " << status;
    if (out[0] != i * n * (n + 1) / 2 || out[1] != i) ++wrong;
    if (i % 100 == 99) {  // another collective between repeats: the lane's calls stay in step with it
      int64_t root_value = rank == 0 ? i : -1;
      ASSERT_TRUE(comm->Broadcast(&root_value, &root_value, 1, DataType::kInt64, /*root=*/0).ok());
      if (root_value != i) ++wrong;
    }
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(CallsOf(*comm, Algorithm::kInline), static_cast<uint64_t>(kCalls));
  // In place, then a repeat inside a group: queued, and run at GroupEnd.
  int64_t value[2] = {rank, 1};
  ASSERT_TRUE(comm->Call(CollectiveCall::AllReduce(value, value, 2, DataType::kInt64, ReduceOp::kSum)).ok());
  EXPECT_EQ(value[1], n);
  value[0] = rank;
  value[1] = 1;
  ASSERT_TRUE(comm->GroupStart().ok());
  ASSERT_TRUE(comm->AllReduce(value, value, 2, DataType::kInt64, ReduceOp::kSum).ok());
  EXPECT_EQ(value[1], 1) << "a grouped call ran before GroupEnd";
  ASSERT_TRUE(comm->GroupEnd().ok());
  EXPECT_EQ(value[0], static_cast<int64_t>(n) * (n - 1) / 2);
  EXPECT_EQ(value[1], n);
}

TEST(InlineAllReduce, AutoTakesItUpToTheThresholdOnly) {
  ScopedEnv max("KCOLL_INLINE_MAX_BYTES", "256");
  auto comm = MakeSerialCommunicator();
  ASSERT_TRUE(AllRanks(comm != nullptr));
  const std::vector<double> send(64, 1.0);
  std::vector<double> recv(64, 0.0);
  ASSERT_TRUE(comm->AllReduce(send.data(), recv.data(), 32, DataType::kFloat64, ReduceOp::kSum).ok());  // 256 B
  EXPECT_EQ(CallsOf(*comm, Algorithm::kInline), InlineAvailable() ? 1u : 0u);
  EXPECT_EQ(recv[0], WorldSize());
  ASSERT_TRUE(comm->AllReduce(send.data(), recv.data(), 33, DataType::kFloat64, ReduceOp::kSum).ok());  // 264 B
  EXPECT_EQ(CallsOf(*comm, Algorithm::kInline), InlineAvailable() ? 1u : 0u);
  EXPECT_EQ(recv[32], WorldSize());
}

// The inline limit a communicator measured at creation: a size the rule can give, described with every candidate's
// times.
void ExpectMeasuredLimit(const Communicator& comm) {
  const size_t limit = comm.inline_limit_bytes();
  const std::string described = absl::StrJoin(comm.Describe(), "\n");
  EXPECT_THAT((std::vector<size_t>{128, 256, 512, 1024, 2048, 4096}), ::testing::Contains(limit));
  EXPECT_THAT(described, HasSubstr("inline lane: up to " + FormatInlineBytes(limit) + ", measured at creation"));
  EXPECT_THAT(described, HasSubstr("4 KiB"));  // every candidate's times are shown
}

// Unset, the limit is the communicator's to measure: the same on every rank, a size the rule can give, honoured by
// `auto`, and the measuring calls are not in the application's counters. Ranks that take turns on the cores measure
// it too (the turns are part of what a call costs them), and the description says where it came from.
TEST(InlineAllReduce, UnsetLimitIsMeasuredAtCreationTheSameOnEveryRank) {
  if (!InlineAvailable()) GTEST_SKIP() << "needs 2 or more ranks on one node over shared memory";
  for (const char* setting : {static_cast<const char*>(nullptr), "measure"}) {
    ScopedEnv max("KCOLL_INLINE_MAX_BYTES", setting);
    auto comm = MakeSerialCommunicator();
    ASSERT_TRUE(AllRanks(comm != nullptr));
    const size_t limit = comm->inline_limit_bytes();
    unsigned long long mine = limit, low = 0, high = 0;
    MPI_Allreduce(&mine, &low, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &high, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    EXPECT_EQ(low, high) << "ranks chose different limits";
    ExpectMeasuredLimit(*comm);
    EXPECT_TRUE(comm->counters().collectives.empty()) << "the measuring calls were counted";
    EXPECT_EQ(comm->counters().total.send.calls, 0u) << "the measuring calls were counted";
    std::vector<float> send(2048, 1.0f), recv(2048, 0.0f);
    const size_t at_limit = limit / sizeof(float);
    ASSERT_TRUE(comm->AllReduce(send.data(), recv.data(), at_limit, DataType::kFloat32, ReduceOp::kSum).ok());
    EXPECT_EQ(CallsOf(*comm, Algorithm::kInline), 1u);
    ASSERT_TRUE(comm->AllReduce(send.data(), recv.data(), at_limit + 1, DataType::kFloat32, ReduceOp::kSum).ok());
    EXPECT_EQ(CallsOf(*comm, Algorithm::kInline), 1u) << "a call over the limit went inline";
    EXPECT_EQ(recv[at_limit], WorldSize());
  }
}

// Ranks bound to one core between them take turns on it however many cores the machine has: the limit is measured
// there as anywhere, repeated calls stay exact and counted, and the collectives that only move data keep the slots by
// default (the spin policy's test of the cores, which the repeat lane follows too).
TEST(InlineAllReduce, RanksBoundToOneCoreMeasureTheLimitAndStayExact) {
  if (!InlineAvailable()) GTEST_SKIP() << "needs 2 or more ranks on one node over shared memory";
  cpu_set_t mine, every;
  CPU_ZERO(&mine);
  ASSERT_EQ(sched_getaffinity(0, sizeof(mine), &mine), 0);
  every = mine;
  MPI_Allreduce(MPI_IN_PLACE, &every, static_cast<int>(sizeof(every)), MPI_BYTE, MPI_BOR, MPI_COMM_WORLD);
  int core = 0;
  while (core < CPU_SETSIZE && !CPU_ISSET(core, &every)) ++core;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(core, &one);
  if (!AllRanks(sched_setaffinity(0, sizeof(one), &one) == 0)) {
    sched_setaffinity(0, sizeof(mine), &mine);
    GTEST_SKIP() << "a rank may not run on core " << core;
  }
  ScopedEnv max("KCOLL_INLINE_MAX_BYTES", nullptr);
  ScopedEnv single_copy("KCOLL_SHM_SINGLE_COPY", nullptr);
  auto comm = MakeSerialCommunicator();
  const bool created = AllRanks(comm != nullptr);
  std::vector<double> send(1), recv(1);
  bool exact = true;
  constexpr int kCalls = 200;
  for (int call = 0; created && call < kCalls; ++call) {
    send[0] = call * (WorldRank() + 1);
    exact &= comm->AllReduce(send.data(), recv.data(), 1, DataType::kFloat64, ReduceOp::kSum).ok() &&
             recv[0] == call * WorldSize() * (WorldSize() + 1) / 2.0;
  }
  sched_setaffinity(0, sizeof(mine), &mine);
  ASSERT_TRUE(created);
  EXPECT_TRUE(exact);
  EXPECT_EQ(CallsOf(*comm, Algorithm::kInline), static_cast<uint64_t>(kCalls));
  ExpectMeasuredLimit(*comm);
  const std::string& execution = comm->execution();
  if (execution.find("measured; profile") == std::string::npos &&
      execution.find("the kernel does not let") == std::string::npos) {
    EXPECT_THAT(execution, HasSubstr("no single copy (default; the ranks take turns on the cores)"));
  }
}

TEST(InlineAllReduce, PinnedLimitIsDescribedAsSuch) {
  if (!InlineAvailable()) GTEST_SKIP() << "needs 2 or more ranks on one node over shared memory";
  ScopedEnv max("KCOLL_INLINE_MAX_BYTES", "512");
  auto comm = MakeSerialCommunicator();
  ASSERT_TRUE(AllRanks(comm != nullptr));
  EXPECT_EQ(comm->inline_limit_bytes(), 512u);
  EXPECT_THAT(absl::StrJoin(comm->Describe(), "\n"),
              HasSubstr("inline lane: up to 512 B, from KCOLL_INLINE_MAX_BYTES"));
}

TEST(InlineAllReduce, ZeroMaxBytesTurnsItOff) {
  ScopedEnv max("KCOLL_INLINE_MAX_BYTES", "0");
  auto comm = MakeSerialCommunicator();
  ASSERT_TRUE(AllRanks(comm != nullptr));
  double one = 1.0, sum = 0.0;
  ASSERT_TRUE(comm->AllReduce(&one, &sum, 1, DataType::kFloat64, ReduceOp::kSum).ok());
  EXPECT_EQ(sum, WorldSize());
  EXPECT_EQ(CallsOf(*comm, Algorithm::kInline), 0u);
}

TEST(InlineAllReduce, BadThresholdIsRefusedNamingTheValue) {
  for (const char* bad : {"8K", "lots"}) {
    ScopedEnv max("KCOLL_INLINE_MAX_BYTES", bad);
    auto comm = Communicator::Create(MPI_COMM_WORLD, CommunicatorOptions{});
    EXPECT_THAT(comm, IsInvalidArgument("KCOLL_INLINE_MAX_BYTES")) << bad;
  }
}

TEST(InlineAllReduce, ElsewhereItIsRefusedAndAutoNeverTakesIt) {
  if (InlineAvailable()) GTEST_SKIP() << "this run has the inline path";
  auto comm = MakeSerialCommunicator();
  ASSERT_TRUE(AllRanks(comm != nullptr));
  double one = 1.0, sum = 0.0;
  CallOptions options;
  options.algorithm = Algorithm::kInline;
  const absl::Status refused = comm->AllReduce(&one, &sum, 1, DataType::kFloat64, ReduceOp::kSum, options);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition) << refused;
  EXPECT_THAT(std::string(refused.message()), HasSubstr("one node over the shm transport"));
  const uint64_t refused_calls = CallsOf(*comm, Algorithm::kInline);  // the counters record the refused call
  ASSERT_TRUE(comm->AllReduce(&one, &sum, 1, DataType::kFloat64, ReduceOp::kSum).ok());
  EXPECT_EQ(sum, WorldSize());
  EXPECT_EQ(CallsOf(*comm, Algorithm::kInline), refused_calls);
}

TEST(InlineAllReduce, MoreThanTheLinesHoldIsRefused) {
  if (!InlineAvailable()) GTEST_SKIP() << "needs 2 or more ranks on one node over shared memory";
  auto comm = MakeSerialCommunicator();
  ASSERT_TRUE(AllRanks(comm != nullptr));
  std::vector<char> send(kMaxInlineBytes + 1), recv(kMaxInlineBytes + 1);
  CallOptions options;
  options.algorithm = Algorithm::kInline;
  const absl::Status status =
      comm->AllReduce(send.data(), recv.data(), send.size(), DataType::kUint8, ReduceOp::kSum, options);
  EXPECT_THAT(status, IsInvalidArgument("count 4097"));
  // Refused before any rank published: the communicator goes on.
  double one = 1.0, sum = 0.0;
  ASSERT_TRUE(comm->AllReduce(&one, &sum, 1, DataType::kFloat64, ReduceOp::kSum).ok());
  EXPECT_EQ(sum, WorldSize());
}

TEST(InlineAllReduce, RanksWithDifferentCountsAreRefusedOnEveryRank) {
  if (!InlineAvailable()) GTEST_SKIP() << "needs 2 or more ranks on one node over shared memory";
  auto comm = MakeSerialCommunicator(absl::Seconds(20));
  ASSERT_TRUE(AllRanks(comm != nullptr));
  const std::vector<int32_t> send(8, 1);
  std::vector<int32_t> recv(8, 0);
  const size_t count = WorldRank() == 0 ? 4 : 8;
  const absl::Status status = comm->AllReduce(send.data(), recv.data(), count, DataType::kInt32, ReduceOp::kSum);
  EXPECT_THAT(status, IsInvalidArgument("called with different arguments"));
  // Every rank published and saw the mismatch: the ranks are still in step.
  ASSERT_TRUE(comm->AllReduce(send.data(), recv.data(), 8, DataType::kInt32, ReduceOp::kSum).ok());
  EXPECT_EQ(recv[7], WorldSize());
}

// The lane keeps the bookkeeping it derives from a call's arguments for the next call with the same ones
// (InlineCallMemo): the counters of calls alternating between shapes, repeated, and after a reset must still be
// every call's own, and a rank repeating its last call while another changes its count must still be refused.
TEST(InlineAllReduce, CountersAndSignaturesOfRepeatedAndAlternatingCalls) {
  if (!InlineAvailable()) GTEST_SKIP() << "needs 2 or more ranks on one node over shared memory";
  auto comm = MakeSerialCommunicator(absl::Seconds(20));
  ASSERT_TRUE(AllRanks(comm != nullptr));
  const uint64_t peers = static_cast<uint64_t>(WorldSize() - 1);
  float f[2] = {1, 2}, f_out[2];
  int32_t i[3] = {1, 2, 3}, i_out[3];
  auto float_sum = [&] { return comm->AllReduce(f, f_out, 2, DataType::kFloat32, ReduceOp::kSum); };
  auto int_max = [&] { return comm->AllReduce(i, i_out, 3, DataType::kInt32, ReduceOp::kMax); };
  // 3 float sums of 8 B and 2 int maxes of 12 B, repeated and interleaved.
  ASSERT_TRUE(float_sum().ok());
  ASSERT_TRUE(float_sum().ok());
  ASSERT_TRUE(int_max().ok());
  ASSERT_TRUE(float_sum().ok());
  ASSERT_TRUE(int_max().ok());
  EXPECT_EQ(f_out[1], 2.0f * WorldSize());
  EXPECT_EQ(i_out[2], 3);
  const CollectiveCounts* entry = comm->counters().Find(Collective::kAllReduce, Algorithm::kInline);
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->calls, 5u);
  EXPECT_EQ(entry->bytes, 3u * 8 + 2u * 12);
  const uint64_t payload = 3u * 8 + 2u * 12;
  EXPECT_EQ(comm->counters().total.send.calls, 5 * peers);
  EXPECT_EQ(comm->counters().total.send.bytes, payload * peers);
  EXPECT_EQ(comm->counters().total.recv.bytes, payload * peers);
  EXPECT_EQ(comm->counters().total.reduce.calls, 5 * peers);
  EXPECT_EQ(entry->primitives, comm->counters().total);
  // After a reset the entry is made again and counts from zero.
  comm->ResetCounters();
  ASSERT_TRUE(int_max().ok());
  entry = comm->counters().Find(Collective::kAllReduce, Algorithm::kInline);
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->calls, 1u);
  EXPECT_EQ(entry->bytes, 12u);
  EXPECT_EQ(comm->counters().total.send.bytes, 12 * peers);
  // Rank 0 repeats its last call; the others change the count: refused on every rank, which stay in step.
  const absl::Status status =
      WorldRank() == 0 ? int_max() : comm->AllReduce(i, i_out, 2, DataType::kInt32, ReduceOp::kMax);
  EXPECT_THAT(status, IsInvalidArgument("called with different arguments"));
  ASSERT_TRUE(int_max().ok());
  EXPECT_EQ(i_out[2], 3);
}

// A loop's repeats are added to the counters when they are read (InlineCallMemo::untallied_calls), and timed one in
// 16: every read must show every call exactly once, a reset must drop the ones not yet read, and the time must be
// that of calls that ran.
TEST(InlineAllReduce, RepeatedCallsAreCountedOnceWhenTheCountersAreRead) {
  if (!InlineAvailable()) GTEST_SKIP() << "needs 2 or more ranks on one node over shared memory";
  auto comm = MakeSerialCommunicator(absl::Seconds(20));
  ASSERT_TRUE(AllRanks(comm != nullptr));
  const uint64_t peers = static_cast<uint64_t>(WorldSize() - 1);
  double one = 1.0, sum = 0.0;
  auto calls = [&](int n) {
    for (int i = 0; i < n; ++i) {
      ASSERT_TRUE(comm->AllReduce(&one, &sum, 1, DataType::kFloat64, ReduceOp::kSum).ok());
      ASSERT_EQ(sum, WorldSize());
    }
  };
  auto inline_entry = [&] { return comm->counters().Find(Collective::kAllReduce, Algorithm::kInline); };
  const auto begin = std::chrono::steady_clock::now();
  calls(37);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  const CollectiveCounts* entry = inline_entry();
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->calls, 37u);
  EXPECT_EQ(entry->bytes, 37u * 8);
  EXPECT_EQ(entry->primitives.send.calls, 37 * peers);
  EXPECT_EQ(entry->primitives.recv.bytes, 37 * 8 * peers);
  EXPECT_EQ(entry->primitives, comm->counters().total);
  EXPECT_GT(entry->seconds, 0.0);
  // The untimed repeats stand at the timed ones' mean: at most 37 times the slowest, and here no call is slow.
  EXPECT_LT(entry->seconds, 37 * wall);
  // Read again, and after more calls: nothing counted twice.
  EXPECT_EQ(inline_entry()->calls, 37u);
  calls(20);
  EXPECT_EQ(inline_entry()->calls, 57u);
  EXPECT_EQ(comm->counters().total.send.calls, 57 * peers);
  // Repeats before a reset are gone with it; those after it are counted.
  calls(5);
  comm->ResetCounters();
  EXPECT_EQ(inline_entry(), nullptr);
  calls(3);
  ASSERT_NE(inline_entry(), nullptr);
  EXPECT_EQ(inline_entry()->calls, 3u);
  EXPECT_EQ(comm->counters().total.reduce.calls, 3 * peers);
}

// The last rank stalls past the timeout in an 8-byte AllReduce, after `calls_before` calls of it that succeed: every
// other rank's call must fail naming it and break the communicator, and count as a call of the lane.
void ExpectStalledRankNamedAfter(int calls_before) {
  constexpr absl::Duration kTimeout = absl::Milliseconds(500);
  MPI_Barrier(MPI_COMM_WORLD);  // a previous test's broken communicator finalizes on each rank in its own time
  auto comm = MakeSerialCommunicator(kTimeout);
  ASSERT_TRUE(AllRanks(comm != nullptr));
  const int stalled = WorldSize() - 1;
  double one = 1.0, sum = 0.0;
  for (int i = 0; i < calls_before; ++i) {
    ASSERT_TRUE(comm->AllReduce(&one, &sum, 1, DataType::kFloat64, ReduceOp::kSum).ok());
    ASSERT_EQ(sum, WorldSize());
  }
  if (WorldRank() == stalled) {
    std::this_thread::sleep_for(absl::ToChronoNanoseconds(kTimeout * 3));
    (void)comm->AllReduce(&one, &sum, 1, DataType::kFloat64, ReduceOp::kSum);  // its peers have given up
  } else {
    const absl::Status status = comm->AllReduce(&one, &sum, 1, DataType::kFloat64, ReduceOp::kSum);
    EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
    EXPECT_THAT(std::string(status.message()),
                HasSubstr(absl::StrCat("ranks whose transfers did not complete: ", stalled)));
    EXPECT_THAT(std::string(status.message()), HasSubstr("all_reduce (inline)"));
    // The communicator is broken: no call may run on it any more.
    EXPECT_FALSE(comm->AllReduce(&one, &sum, 1, DataType::kFloat64, ReduceOp::kSum).ok());
    const CollectiveCounts* entry = comm->counters().Find(Collective::kAllReduce, Algorithm::kInline);
    ASSERT_NE(entry, nullptr);
    EXPECT_EQ(entry->calls, static_cast<uint64_t>(calls_before) + 1);
    // The call's time, in the message and in the counters, is its wait's, also for a repeated call that read no
    // clock before waiting.
    const std::string message(status.message());
    const size_t at = message.find(" s after the call began");
    ASSERT_NE(at, std::string::npos) << message;
    const size_t from = message.rfind(' ', at - 1) + 1;
    const double since_began = std::stod(message.substr(from, at - from));
    const double timeout = absl::ToDoubleSeconds(kTimeout);
    EXPECT_GE(since_began, 0.9 * timeout) << message;
    EXPECT_LT(since_began, 10 * timeout) << message;
    EXPECT_GE(entry->seconds, 0.9 * timeout);
    EXPECT_LT(entry->seconds, 10 * timeout + 1.0);  // the earlier calls' microseconds, and this one's wait
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(InlineAllReduce, AStalledRankIsNamedUnderATimeout) {
  if (!InlineAvailable()) GTEST_SKIP() << "needs 2 or more ranks on one node over shared memory";
  ExpectStalledRankNamedAfter(0);
}

// A loop's repeated call goes from Call straight to the exchange (Communicator::RunRepeatedInline): its timeout must
// name the rank and break the communicator as the first call's does.
TEST(InlineAllReduce, AStalledRankIsNamedUnderATimeoutInARepeatedCall) {
  if (!InlineAvailable()) GTEST_SKIP() << "needs 2 or more ranks on one node over shared memory";
  ExpectStalledRankNamedAfter(2);
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
