// Faults on the MPI transport: a stalled rank, and arguments that differ across ranks, with a timeout set.
//
// Stall: one rank sleeps past the timeout before a collective the others have entered. Every rank whose result
// depends on it returns DeadlineExceeded within timeout + 1 s, naming the collective, the algorithm, the step and the
// peers; the next call on the communicator returns FailedPrecondition quoting that error. Which ranks depend on the
// stalled one: everyone for the all-to-all shaped collectives and for Broadcast/Scatter from the stalled root; the
// root of Reduce/Gather (a rank that only sends may finish, as in MPI); the right neighbour for SendRecv.
//
// Mismatch: one rank calls AllReduce with another count, type, op or algorithm, or Broadcast with another root,
// without KCOLL_CHECK_ARGS. No rank reports a wrong answer as OK and no buffer is written past its end.
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "collectives/algorithms/registry.h"
#include "collectives/communicator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/collective_test_util.h"
#include "tests/make_communicator.h"
#include "tests/matchers.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace testing {
namespace {

constexpr absl::Duration kTimeout = absl::Milliseconds(250);
constexpr size_t kCount = 64;
// Bytes after every receive buffer that must stay untouched.
constexpr size_t kGuardBytes = 256;
constexpr unsigned char kGuard = 0xA5;

std::unique_ptr<Communicator> TimedCommunicator(bool check_args = false) {
  CommunicatorOptions options;
  options.timeout = kTimeout;
  options.check_args = check_args;
  return MakeCommunicator(options);
}

// Send and receive buffers large enough for any collective of `count` float32 elements, the receive buffer
// followed by a guard.
struct Buffers {
  explicit Buffers(size_t count) : send(count * WorldSize(), 1.0f), recv_bytes(count * WorldSize() * sizeof(float)) {
    recv.assign(recv_bytes + kGuardBytes, 0);
    std::memset(recv.data() + recv_bytes, kGuard, kGuardBytes);
  }
  bool GuardIntact() const {
    for (size_t i = recv_bytes; i < recv.size(); ++i) {
      if (recv[i] != kGuard) return false;
    }
    return true;
  }
  std::vector<float> send;
  size_t recv_bytes;
  std::vector<unsigned char> recv;
};

absl::Status Call(Communicator& comm, Collective collective, Algorithm algorithm, Buffers& b, size_t count,
                  DataType type = DataType::kFloat32, ReduceOp op = ReduceOp::kSum, int root = 0) {
  CallOptions options;
  options.algorithm = algorithm;
  return comm.Call(collective, b.send.data(), b.recv.data(), count, type, op, root, options);
}

struct StallCase {
  int stalled;
  int root;
  // Whether `rank` cannot finish without the stalled rank.
  bool MustTimeOut(Collective collective, int rank, int n) const {
    switch (collective) {
      case Collective::kReduce:
      case Collective::kGather:
        return rank == root;
      case Collective::kSendRecv:
        return rank == (stalled + 1) % n;
      default:
        return true;
    }
  }
};

StallCase ChooseStall(Collective collective) {
  const int n = WorldSize();
  // Broadcast and Scatter hand the root's data to everyone: stall the root. Otherwise stall the last rank, which
  // is not the root.
  if (collective == Collective::kBroadcast || collective == Collective::kScatter) return {n - 1, n - 1};
  return {n - 1, 0};
}

// Whether a timeout message lists `peer` among the ranks whose transfers did not complete.
bool NamesPeer(absl::string_view message, int peer) {
  constexpr absl::string_view kList = "ranks whose transfers did not complete: ";
  const size_t at = message.find(kList);
  if (at == absl::string_view::npos) return false;
  absl::string_view list = message.substr(at + kList.size());
  list = list.substr(0, list.find(" ("));
  for (absl::string_view r : absl::StrSplit(list, ", ")) {
    if (r == std::to_string(peer)) return true;
  }
  return false;
}

// Whether a timeout message names `rank` as the cause that never entered the call (the report after a timeout
// compares the ranks' positions: collectives/transport/mpi/stall_report.h).
bool NamesCause(absl::string_view message, int rank) {
  const std::regex cause(
      absl::StrCat("(the cause is|the causes are)[^;]*rank ", rank, "( \\(host [^)]*\\))? never entered this call"));
  return std::regex_search(std::string(message), cause);
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Runs one stalled call of `collective` with `algorithm` and checks what every rank sees.
void CheckStall(Collective collective, Algorithm algorithm) {
  const int n = WorldSize(), me = WorldRank();
  const std::string label = absl::StrCat(CollectiveName(collective), " (", AlgorithmName(algorithm), ")");
  SCOPED_TRACE(label);
  auto comm = TimedCommunicator();
  ASSERT_TRUE(AllRanks(comm != nullptr));
  const StallCase stall = ChooseStall(collective);
  Buffers buffers(kCount);
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == stall.stalled) {
    // Stalls until every other rank has returned from its call (on MPI_COMM_WORLD, which kcoll does not use), not
    // for a fixed time: a loaded machine may deschedule a waiting rank past any fixed stall, and the data arriving
    // before it polls again would make its call succeed.
    MPI_Barrier(MPI_COMM_WORLD);
    // Its peers have given up: it either finishes its share (a rank that only sends) or times out in turn.
    absl::Status late =
        Call(*comm, collective, algorithm, buffers, kCount, DataType::kFloat32, ReduceOp::kSum, stall.root);
    EXPECT_TRUE(late.ok() || late.code() == absl::StatusCode::kDeadlineExceeded) << late;
  } else {
    const auto start = std::chrono::steady_clock::now();
    absl::Status s =
        Call(*comm, collective, algorithm, buffers, kCount, DataType::kFloat32, ReduceOp::kSum, stall.root);
    const double waited = SecondsSince(start);
    MPI_Barrier(MPI_COMM_WORLD);  // releases the stalled rank
    if (stall.MustTimeOut(collective, me, n)) {
      EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
    } else {
      EXPECT_TRUE(s.ok() || s.code() == absl::StatusCode::kDeadlineExceeded) << s;
    }
    if (s.code() == absl::StatusCode::kDeadlineExceeded) {
      EXPECT_GE(waited, absl::ToDoubleSeconds(kTimeout) * 0.99);
      EXPECT_LE(waited, absl::ToDoubleSeconds(kTimeout) + 2.0);  // slack for a loaded machine
      EXPECT_THAT(s.message(), HasSubstr(label));
      EXPECT_THAT(s.message(), HasSubstr(absl::StrCat("on rank ", me)));
      EXPECT_THAT(s.message(), HasSubstr(absl::StrCat("no transfer completed for ", absl::FormatDuration(kTimeout))));
      EXPECT_THAT(s.message(), HasSubstr("at step "));
      EXPECT_THAT(s.message(), HasSubstr("after the call began; ranks whose transfers did not complete: "));
      // The rank that held the call up is named, not the neighbour this rank waited for.
      EXPECT_TRUE(NamesCause(s.message(), stall.stalled)) << s.message();
      // The communicator is broken: the next call says so, quoting the first error, without waiting.
      const auto again = std::chrono::steady_clock::now();
      absl::Status next =
          comm->AllReduce(buffers.send.data(), buffers.recv.data(), 1, DataType::kFloat32, ReduceOp::kSum);
      EXPECT_EQ(next.code(), absl::StatusCode::kFailedPrecondition) << next;
      EXPECT_THAT(next.message(), HasSubstr("the communicator is broken by an earlier error"));
      EXPECT_THAT(next.message(), HasSubstr(std::string(s.message())));
      EXPECT_LT(SecondsSince(again), absl::ToDoubleSeconds(kTimeout) * 0.8);  // it did not wait for a timeout
      EXPECT_FALSE(comm->broken().ok());
    }
  }
  EXPECT_TRUE(buffers.GuardIntact());
  // Some rank names the stalled one as a peer whose transfer did not complete (its direct neighbours do).
  bool named = false;
  if (me != stall.stalled && !comm->broken().ok()) {
    named = NamesPeer(comm->broken().message(), stall.stalled);
  }
  int any_named = named ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &any_named, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(any_named, 1) << "no rank named the stalled rank " << stall.stalled;
  EXPECT_TRUE(comm->Finalize().ok());
  MPI_Barrier(MPI_COMM_WORLD);
}

class StallTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (WorldSize() < 2) GTEST_SKIP() << "a stall needs a peer";
  }
};

// Each stall waits out two timeouts, so the sweeps over every algorithm run at 3 ranks (a rank count that is not a
// power of two, which most schedules treat apart) on each transport, and with KCOLL_EXHAUSTIVE=1; the other rank
// counts stall each collective's first algorithm (the wait and its error are the transport's, shared by all).
std::vector<Algorithm> StalledAlgorithms(Collective collective) {
  std::vector<Algorithm> all = TransferAlgorithmsFor(collective);
  if (WorldSize() == 3 || Exhaustive() || all.empty()) return all;
  return {all.front()};
}

TEST_F(StallTest, EveryAllReduceAlgorithmTimesOut) {
  for (Algorithm a : StalledAlgorithms(Collective::kAllReduce)) CheckStall(Collective::kAllReduce, a);
}

TEST_F(StallTest, EveryAlgorithmOfEveryOtherCollectiveTimesOut) {
  for (Collective c : {Collective::kReduceScatter, Collective::kAllGather, Collective::kBroadcast, Collective::kReduce,
                       Collective::kAllToAll, Collective::kGather, Collective::kScatter, Collective::kSendRecv,
                       Collective::kBarrier}) {
    for (Algorithm a : StalledAlgorithms(c)) CheckStall(c, a);
  }
}

TEST_F(StallTest, ALargeTransferInFlightTimesOutAndIsWithdrawn) {
  // 4 MiB per rank: above Open MPI's eager limit, so the receives wait for a rendezvous that never comes.
  const int n = WorldSize(), me = WorldRank();
  auto comm = TimedCommunicator();
  ASSERT_TRUE(AllRanks(comm != nullptr));
  const size_t count = size_t{1} << 20;
  Buffers buffers(count);
  MPI_Barrier(MPI_COMM_WORLD);
  CallOptions ring;
  ring.algorithm = Algorithm::kRing;
  if (me == n - 1) {
    std::this_thread::sleep_for(absl::ToChronoNanoseconds(kTimeout * 2));
  } else {
    absl::Status s =
        comm->AllReduce(buffers.send.data(), buffers.recv.data(), count, DataType::kFloat32, ReduceOp::kSum, ring);
    EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
    // Nothing lands in the buffer after the call returned: the receives were cancelled.
    std::vector<unsigned char> snapshot(buffers.recv);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_TRUE(snapshot == buffers.recv);
  }
  EXPECT_TRUE(buffers.GuardIntact());
  EXPECT_TRUE(comm->Finalize().ok());
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST_F(StallTest, TheArgumentCheckTimesOutToo) {
  const int n = WorldSize(), me = WorldRank();
  auto comm = TimedCommunicator(/*check_args=*/true);
  ASSERT_TRUE(AllRanks(comm != nullptr));
  Buffers buffers(kCount);
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == n - 1) {
    std::this_thread::sleep_for(absl::ToChronoNanoseconds(kTimeout * 2));
  } else {
    absl::Status s =
        comm->AllReduce(buffers.send.data(), buffers.recv.data(), kCount, DataType::kFloat32, ReduceOp::kSum);
    EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
    EXPECT_THAT(s.message(),
                HasSubstr(absl::StrCat(CollectiveName(Collective::kAllReduce),
                                       ": the cross-rank argument check (KCOLL_CHECK_ARGS) did not complete")));
    absl::Status next = comm->Barrier();
    EXPECT_EQ(next.code(), absl::StatusCode::kFailedPrecondition) << next;
  }
  EXPECT_TRUE(comm->Finalize().ok());
  MPI_Barrier(MPI_COMM_WORLD);
}

// One rank's arguments differ: every rank must end in an error (or, where its own view of the call is complete
// and correct, OK with the right answer), and no buffer is overrun.
class MismatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (WorldSize() < 2) GTEST_SKIP() << "a mismatch needs two ranks";
  }
  int odd() const { return WorldSize() - 1; }  // the rank whose arguments differ
  bool is_odd() const { return WorldRank() == odd(); }

  // Runs AllReduce with this rank's arguments; every rank must fail, and some rank must say why.
  void ExpectAllReduceFails(size_t count, DataType type, ReduceOp op, Algorithm algorithm) {
    auto comm = TimedCommunicator();
    ASSERT_TRUE(AllRanks(comm != nullptr));
    Buffers buffers(kCount + 1);
    absl::Status s = Call(*comm, Collective::kAllReduce, algorithm, buffers, count, type, op);
    EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
    EXPECT_TRUE(buffers.GuardIntact());
    int diagnosed = absl::StrContains(s.message(), "with different arguments") ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &diagnosed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    EXPECT_EQ(diagnosed, 1) << "no rank said that a peer called with different arguments; this rank: " << s;
    EXPECT_TRUE(comm->Finalize().ok());
    MPI_Barrier(MPI_COMM_WORLD);
  }
};

TEST_F(MismatchTest, Count) {
  ExpectAllReduceFails(is_odd() ? kCount + 1 : kCount, DataType::kFloat32, ReduceOp::kSum, Algorithm::kRing);
}

TEST_F(MismatchTest, TypeOfTheSameSize) {
  // float32 and int32 move the same bytes: without the call signature this would "succeed" with garbage.
  ExpectAllReduceFails(kCount, is_odd() ? DataType::kInt32 : DataType::kFloat32, ReduceOp::kSum, Algorithm::kRing);
}

TEST_F(MismatchTest, Op) {
  ExpectAllReduceFails(kCount, DataType::kFloat32, is_odd() ? ReduceOp::kMax : ReduceOp::kSum, Algorithm::kRing);
}

TEST_F(MismatchTest, Algorithm) {
  ExpectAllReduceFails(kCount, DataType::kFloat32, ReduceOp::kSum,
                       is_odd() ? Algorithm::kRecursiveDoubling : Algorithm::kRing);
}

TEST_F(MismatchTest, Root) {
  // A rank may complete where its own view of the call needs nothing from a rank that disagrees (the ranks that
  // agree with each other, a root that only sends), and then holds its root's data; every other rank times out.
  auto comm = TimedCommunicator();
  ASSERT_TRUE(AllRanks(comm != nullptr));
  Buffers buffers(kCount);
  for (size_t i = 0; i < kCount; ++i) buffers.send[i] = static_cast<float>(WorldRank() * 1000 + i);
  const int root = is_odd() ? 1 % WorldSize() : 0;
  absl::Status s =
      Call(*comm, Collective::kBroadcast, Algorithm::kTree, buffers, kCount, DataType::kFloat32, ReduceOp::kSum, root);
  if (s.ok()) {
    std::vector<float> got(kCount);
    std::memcpy(got.data(), buffers.recv.data(), kCount * sizeof(float));
    for (size_t i = 0; i < kCount; ++i) ASSERT_EQ(got[i], static_cast<float>(root * 1000 + i)) << i;
  } else {
    EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
  }
  EXPECT_TRUE(buffers.GuardIntact());
  EXPECT_TRUE(comm->Finalize().ok());
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(TimeoutSetting, ComesFromTheEnvironmentWhenTheOptionsSayNothing) {
  setenv("KCOLL_TIMEOUT", "45s", 1);
  auto comm = Communicator::Create(MPI_COMM_WORLD);
  unsetenv("KCOLL_TIMEOUT");
  ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
  EXPECT_EQ((*comm)->timeout().timeout, absl::Seconds(45));
  // And a healthy communicator with a timeout runs collectives as before, exactly.
  std::vector<int32_t> in(kCount, WorldRank() + 1), out(kCount, 0);
  absl::Status s = (*comm)->AllReduce(in.data(), out.data(), kCount, DataType::kInt32, ReduceOp::kSum);
  ASSERT_TRUE(s.ok()) << s;
  const int n = WorldSize();
  for (int32_t v : out) ASSERT_EQ(v, n * (n + 1) / 2);
  EXPECT_TRUE((*comm)->broken().ok());
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
