// Nonblocking collectives (collectives/request.h), on the progress thread and eagerly: every collective bit for bit
// against the local reference with many calls in flight, IAllReduce against MPI_Iallreduce, completion in a random
// Test order, WaitAny, blocking and nonblocking calls mixed, progress while the application sits in MPI, buffers
// never touched after completion, errors from Wait (arguments, a rank rejecting at the root only, a stalled rank),
// and Finalize with calls in flight.
//
// Run with KCOLL_TEST_MPI_THREADS=multiple (tests/BUILD), so that a progress thread may call MPI beside the test's.
#include <mpi.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collectives/communicator.h"
#include "gmock/gmock.h"
#include "tests/collective_reference.h"
#include "tests/make_communicator.h"
#include "tests/mpi_reference.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace testing {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<Communicator> MakeWith(Progress progress, absl::Duration timeout = absl::InfiniteDuration()) {
  CommunicatorOptions options;
  options.backend = ExecBackend::kSerial;
  options.progress = progress;
  options.timeout = timeout;
  return MakeCommunicator(options);
}

// One call's buffers and what it must produce.
struct Call {
  Collective collective;
  DataType type;
  ReduceOp op;
  size_t count;
  int root;
  std::vector<char> send, recv, want;
  Request request;
};

Call MakeCall(Collective collective, DataType type, ReduceOp op, size_t count, int root) {
  const int me = WorldRank(), n = WorldSize();
  Call call{collective, type, op, count, root, SendBuffer(collective, type, op, count, root, me, n), {}, {}, {}};
  call.want = ExpectedRecv(collective, type, op, count, root, me, n);
  call.recv.assign(std::max<size_t>(call.want.size(), 1), 0x5a);
  if (call.send.empty()) call.send.resize(1);
  return call;
}

Request Issue(Communicator& comm, Call& call) {
  return comm.ICall(call.collective, call.send.data(), call.recv.data(), call.count, call.type, call.op, call.root);
}

void ExpectResult(const Call& call) {
  const std::vector<char> got(call.recv.begin(), call.recv.begin() + call.want.size());
  EXPECT_EQ(got, call.want) << CollectiveName(call.collective) << " " << DataTypeName(call.type) << " count "
                            << call.count << " root " << call.root;
}

class NonblockingTest : public ::testing::TestWithParam<Progress> {
 protected:
  void SetUp() override {
    comm_ = MakeWith(GetParam());
    ASSERT_TRUE(AllRanks(comm_ != nullptr));
  }
  std::unique_ptr<Communicator> comm_;
  const int me_ = WorldRank();
  const int n_ = WorldSize();
};

TEST_P(NonblockingTest, ReportsHowItProgresses) {
  EXPECT_EQ(comm_->progress().rfind(std::string(ProgressName(GetParam())), 0), 0u) << comm_->progress();
}

// Every collective of several types and sizes, all in flight at once, then WaitAll.
TEST_P(NonblockingTest, EveryCollectiveInFlightAtOnceIsExact) {
  std::vector<Call> calls;
  for (Collective collective : AllCollectives()) {
    // The v-collectives have their own nonblocking tests (v_collectives_test): ICall has no counts arrays for them.
    if (collective == Collective::kBarrier || IsVariable(collective)) continue;
    for (DataType type : {DataType::kInt32, DataType::kFloat64, DataType::kBfloat16}) {
      for (size_t count : {size_t{1}, static_cast<size_t>(n_) + 1, size_t{4099}}) {
        const int root = static_cast<int>(count % static_cast<size_t>(n_));
        calls.push_back(
            MakeCall(collective, type, IsReduction(collective) ? ReduceOp::kSum : ReduceOp::kSum, count, root));
        if (IsReduction(collective)) calls.push_back(MakeCall(collective, type, ReduceOp::kMax, count, root));
      }
    }
  }
  std::vector<Request> requests;
  for (Call& call : calls) requests.push_back(Issue(*comm_, call));
  requests.push_back(comm_->IBarrier());
  ASSERT_TRUE(AllRanks(WaitAll(absl::MakeSpan(requests)).ok()));
  for (const Call& call : calls) ExpectResult(call);
}

// IAllReduce against the vendor's own MPI_Iallreduce, both in flight together.
TEST_P(NonblockingTest, AllReduceMatchesMpiIallreduce) {
  for (DataType type : {DataType::kInt64, DataType::kFloat32}) {
    for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMin, ReduceOp::kProd}) {
      const size_t count = 1000;
      std::vector<char> send(count * DataTypeSize(type)), recv(send.size());
      for (size_t i = 0; i < count; ++i) EncodeAt(type, send.data(), i, ExactInput(type, op, me_, i));
      std::vector<char> mpi_in = ToMpiBuffer(type, send.data(), count), mpi_out(mpi_in.size());
      Request kcoll_request = comm_->IAllReduce(send.data(), recv.data(), count, type, op);
      MPI_Request mpi_request;
      MPI_Iallreduce(mpi_in.data(), mpi_out.data(), static_cast<int>(count), ReferenceTypeOf(type), ReferenceOpOf(op),
                     MPI_COMM_WORLD, &mpi_request);
      MPI_Wait(&mpi_request, MPI_STATUS_IGNORE);
      ASSERT_TRUE(AllRanks(kcoll_request.Wait().ok()));
      EXPECT_EQ(recv, FromMpiBuffer(type, mpi_out, count, op, n_)) << DataTypeName(type) << " " << ReduceOpName(op);
    }
  }
}

// 48 AllReduces of different sizes in flight, completed by polling Test in a random order on each rank.
TEST_P(NonblockingTest, ManyInFlightCompleteUnderRandomTestOrder) {
  std::vector<Call> calls;
  for (int i = 0; i < 48; ++i) {
    calls.push_back(MakeCall(Collective::kAllReduce, DataType::kInt32, ReduceOp::kSum, 1 + size_t(i) * 97, 0));
  }
  std::vector<Request> requests;
  for (Call& call : calls) requests.push_back(Issue(*comm_, call));
  std::vector<size_t> order(calls.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::mt19937 random(static_cast<unsigned>(me_ * 7919 + 1));
  std::vector<bool> done(calls.size(), false);
  size_t left = calls.size();
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (left > 0 && std::chrono::steady_clock::now() < give_up) {
    std::shuffle(order.begin(), order.end(), random);
    for (size_t i : order) {
      if (done[i]) continue;
      absl::StatusOr<bool> finished = requests[i].Test();
      ASSERT_TRUE(finished.ok()) << finished.status();
      if (!*finished) continue;
      done[i] = true;
      --left;
      EXPECT_TRUE(requests[i].Wait().ok());
      ExpectResult(calls[i]);  // complete: its buffer is the application's again
    }
  }
  EXPECT_EQ(left, 0u);
}

TEST_P(NonblockingTest, WaitAnyReportsEachRequestOnce) {
  std::vector<Call> calls;
  for (int i = 0; i < 6; ++i)
    calls.push_back(MakeCall(Collective::kAllGather, DataType::kUint8, ReduceOp::kSum, 5 + i, 0));
  std::vector<Request> requests;
  for (Call& call : calls) requests.push_back(Issue(*comm_, call));
  std::vector<int> seen(calls.size(), 0);
  for (size_t k = 0; k < calls.size(); ++k) {
    size_t index = 0;
    ASSERT_TRUE(WaitAny(absl::MakeSpan(requests), &index).ok());
    ASSERT_LT(index, calls.size());
    ++seen[index];
    EXPECT_TRUE(requests[index].null());
    ExpectResult(calls[index]);
  }
  EXPECT_EQ(seen, std::vector<int>(calls.size(), 1));
  size_t index = 0;
  EXPECT_TRUE(WaitAny(absl::MakeSpan(requests), &index).ok());
  EXPECT_EQ(index, calls.size());  // nothing left
}

// Blocking calls between nonblocking ones run in issue order, and each gets its own result.
TEST_P(NonblockingTest, BlockingAndNonblockingCallsMix) {
  Call first = MakeCall(Collective::kAllReduce, DataType::kFloat32, ReduceOp::kSum, 3000, 0);
  Call second = MakeCall(Collective::kBroadcast, DataType::kInt32, ReduceOp::kSum, 77, n_ - 1);
  Call blocking = MakeCall(Collective::kAllReduce, DataType::kInt64, ReduceOp::kMax, 8, 0);
  Request a = Issue(*comm_, first);
  Request b = Issue(*comm_, second);
  ASSERT_TRUE(
      comm_->AllReduce(blocking.send.data(), blocking.recv.data(), blocking.count, blocking.type, blocking.op).ok());
  ExpectResult(blocking);
  // The blocking call came after both: they are complete (Test says so without waiting).
  absl::StatusOr<bool> a_done = a.Test(), b_done = b.Test();
  EXPECT_TRUE(a_done.ok() && *a_done);
  EXPECT_TRUE(b_done.ok() && *b_done);
  EXPECT_TRUE(a.Wait().ok());
  EXPECT_TRUE(b.Wait().ok());
  ExpectResult(first);
  ExpectResult(second);
  // A second Wait returns the same result; a null request is complete.
  EXPECT_TRUE(a.Wait().ok());
  EXPECT_TRUE(Request().Wait().ok());
}

// Small AllReduces on one node take the inline lane in two halves (published at issue, folded when completed):
// polled with Test, several in a row, a blocking call behind them, and completion in reverse order.
TEST_P(NonblockingTest, SmallAllReducesCompleteInAnyOrder) {
  Call polled = MakeCall(Collective::kAllReduce, DataType::kFloat64, ReduceOp::kSum, 1, 0);
  Request first = Issue(*comm_, polled);
  bool done = false;
  for (int polls = 0; polls < 100000000 && !done; ++polls) {
    absl::StatusOr<bool> test = first.Test();
    ASSERT_TRUE(test.ok());
    done = *test;
  }
  EXPECT_TRUE(done);
  ExpectResult(polled);
  std::vector<Call> calls;
  for (int i = 0; i < 4; ++i)
    calls.push_back(MakeCall(Collective::kAllReduce, DataType::kInt64, ReduceOp::kMax, 1 + i, 0));
  std::vector<Request> requests;
  for (Call& call : calls) requests.push_back(Issue(*comm_, call));
  Call blocking = MakeCall(Collective::kAllReduce, DataType::kInt32, ReduceOp::kSum, 3, 0);
  ASSERT_TRUE(comm_->AllReduce(blocking.send.data(), blocking.recv.data(), 3, DataType::kInt32, ReduceOp::kSum).ok());
  ExpectResult(blocking);
  for (size_t i = requests.size(); i-- > 0;) {
    EXPECT_TRUE(requests[i].Wait().ok());
    ExpectResult(calls[i]);
  }
  Request last = Issue(*comm_, polled);
  EXPECT_TRUE(last.Wait().ok());
  ExpectResult(polled);
}

// The request moves while this rank sits in MPI: rank 0 issues, then blocks in MPI_Recv for the message rank 1 sends
// only once its own request completed, which needs rank 0's part of the call. A progress that happened only inside
// kcoll calls would leave both ranks waiting for ever (the communicator's timeout then fails the test).
TEST_P(NonblockingTest, ProgressesWhileTheApplicationWaitsInMpi) {
  if (n_ < 2) GTEST_SKIP() << "needs two ranks";
  Call call = MakeCall(Collective::kAllReduce, DataType::kInt32, ReduceOp::kSum, 1 << 16, 0);
  Request request = Issue(*comm_, call);
  int token = 0;
  if (me_ == 0) {
    MPI_Recv(&token, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    absl::StatusOr<bool> done = request.Test();
    // Rank 1 finished: rank 0 must have sent its whole part, and a 2-rank call then completes here too, shortly.
    EXPECT_TRUE(done.ok());
  } else if (me_ == 1) {
    EXPECT_TRUE(request.Wait().ok());
    token = 1;
    MPI_Send(&token, 1, MPI_INT, 0, 99, MPI_COMM_WORLD);
  }
  EXPECT_TRUE(request.Wait().ok());
  ExpectResult(call);
  EXPECT_TRUE(AllRanks(!HasFailure()));
}

// After completion kcoll never touches a call's buffers: they are made inaccessible (any access would end the rank
// with SIGSEGV), more calls run, and then they hold exactly what the call left.
TEST_P(NonblockingTest, BuffersAreNotTouchedAfterCompletion) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t count = 3 * page / sizeof(int32_t);
  auto map = [&] {
    void* p = mmap(nullptr, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(p, MAP_FAILED);
    return static_cast<int32_t*>(p);
  };
  int32_t* send = map();
  int32_t* recv = map();
  for (size_t i = 0; i < count; ++i)
    send[i] = static_cast<int32_t>(ExactInput(DataType::kInt32, ReduceOp::kSum, me_, i));
  Request request = comm_->IAllReduce(send, recv, count, DataType::kInt32, ReduceOp::kSum);
  ASSERT_TRUE(request.Wait().ok());
  const std::vector<int32_t> result(recv, recv + count);
  ASSERT_EQ(mprotect(send, 3 * page, PROT_NONE), 0);
  ASSERT_EQ(mprotect(recv, 3 * page, PROT_NONE), 0);
  std::vector<Call> later;
  for (int i = 0; i < 8; ++i)
    later.push_back(MakeCall(Collective::kAllReduce, DataType::kInt32, ReduceOp::kSum, count, 0));
  std::vector<Request> requests;
  for (Call& call : later) requests.push_back(Issue(*comm_, call));
  EXPECT_TRUE(WaitAll(absl::MakeSpan(requests)).ok());
  EXPECT_TRUE(comm_->Barrier().ok());
  ASSERT_EQ(mprotect(recv, 3 * page, PROT_READ), 0);
  EXPECT_TRUE(std::equal(result.begin(), result.end(), recv));
  for (size_t i = 0; i < count; i += 997) {
    EXPECT_EQ(recv[i], static_cast<int32_t>(ExactReduction(DataType::kInt32, ReduceOp::kSum, n_, i)));
  }
  munmap(send, 3 * page);
  munmap(recv, 3 * page);
}

// Arguments every rank rejects: the error comes from Wait, and the communicator stays usable.
TEST_P(NonblockingTest, BadArgumentsFailFromWaitAndTheNextCallWorks) {
  std::vector<int32_t> send(4, 1), recv(4, 0);
  Request bad = comm_->IAllReduce(send.data(), nullptr, 4, DataType::kInt32, ReduceOp::kSum);
  absl::Status status = bad.Wait();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("recv"));
  Request good = comm_->IAllReduce(send.data(), recv.data(), 4, DataType::kInt32, ReduceOp::kSum);
  EXPECT_TRUE(good.Wait().ok());
  EXPECT_EQ(recv, std::vector<int32_t>(4, n_));
}

// A Gather whose root alone rejects its receive buffer: every rank's request fails, naming the root; nothing hangs.
TEST_P(NonblockingTest, RejectionAtTheRootFailsEveryRanksRequest) {
  const int root = n_ - 1;
  std::vector<int32_t> send(3, me_), recv(3 * n_, -1);
  Request request = comm_->IGather(send.data(), me_ == root ? nullptr : recv.data(), 3, DataType::kInt32, root);
  absl::Status status = request.Wait();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  if (me_ != root) {
    EXPECT_THAT(std::string(status.message()), HasSubstr(absl::StrCat("rank ", root)));
  }
  Request next = comm_->IGather(send.data(), recv.data(), 3, DataType::kInt32, root);
  EXPECT_TRUE(next.Wait().ok());
  if (me_ == root) {
    for (int r = 0; r < n_; ++r) EXPECT_EQ(recv[3 * r], r);
  }
}

// With the cross-rank argument check, a count that differs on one rank fails every rank's request, naming the field,
// and the next call works.
TEST_P(NonblockingTest, ArgumentCheckFailsEveryRanksRequestOnAMismatch) {
  if (n_ < 2) GTEST_SKIP() << "needs two ranks";
  CommunicatorOptions options;
  options.backend = ExecBackend::kSerial;
  options.progress = GetParam();
  options.check_args = true;
  comm_ = MakeCommunicator(options);
  ASSERT_TRUE(AllRanks(comm_ != nullptr));
  std::vector<int32_t> send(8, 1), recv(8, 0);
  const size_t count = me_ == 0 ? 5 : 6;
  absl::Status status = comm_->IAllReduce(send.data(), recv.data(), count, DataType::kInt32, ReduceOp::kSum).Wait();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("count"));
  EXPECT_TRUE(comm_->IAllReduce(send.data(), recv.data(), 8, DataType::kInt32, ReduceOp::kSum).Wait().ok());
  EXPECT_EQ(recv, std::vector<int32_t>(8, n_));
}

// Split, Allocate and the counters wait for the calls in flight first: the calls are complete when they return, and
// registered buffers then serve nonblocking calls too.
TEST_P(NonblockingTest, OtherEntryPointsWaitForCallsInFlight) {
  std::vector<Call> calls;
  for (int i = 0; i < 4; ++i)
    calls.push_back(MakeCall(Collective::kAllReduce, DataType::kInt32, ReduceOp::kSum, 3000, 0));
  std::vector<Request> requests;
  for (Call& call : calls) requests.push_back(Issue(*comm_, call));
  absl::StatusOr<std::unique_ptr<Communicator>> sub = comm_->Split(me_ % 2, me_);
  ASSERT_TRUE(AllRanks(sub.ok())) << sub.status();
  for (size_t i = 0; i < requests.size(); ++i) {
    absl::StatusOr<bool> done = requests[i].Test();
    EXPECT_TRUE(done.ok() && *done) << "request " << i << " still in flight after Split";
    ExpectResult(calls[i]);
  }
  requests.clear();
  for (Call& call : calls) requests.push_back(Issue(*comm_, call));
  absl::StatusOr<void*> registered = comm_->Allocate(2 * 256 * sizeof(int32_t));
  ASSERT_TRUE(AllRanks(registered.ok())) << registered.status();
  for (Request& request : requests) {
    absl::StatusOr<bool> done = request.Test();
    EXPECT_TRUE(done.ok() && *done);
  }
  int32_t* send = static_cast<int32_t*>(*registered);
  int32_t* recv = send + 256;
  for (int i = 0; i < 256; ++i) send[i] = me_ + i;
  Request on_registered = comm_->IAllReduce(send, recv, 256, DataType::kInt32, ReduceOp::kSum);
  ASSERT_TRUE(AllRanks(on_registered.Wait().ok()));
  for (int i = 0; i < 256; ++i) EXPECT_EQ(recv[i], n_ * (n_ - 1) / 2 + n_ * i);
  EXPECT_TRUE(AllRanks(comm_->Free(*registered).ok()));
}

// Finalize completes the calls in flight; their requests keep their results, and later calls are refused.
TEST_P(NonblockingTest, FinalizeCompletesCallsInFlight) {
  std::vector<Call> calls;
  for (int i = 0; i < 5; ++i)
    calls.push_back(MakeCall(Collective::kAllReduce, DataType::kInt32, ReduceOp::kSum, 513, 0));
  std::vector<Request> requests;
  for (Call& call : calls) requests.push_back(Issue(*comm_, call));
  ASSERT_TRUE(comm_->Finalize().ok());
  EXPECT_TRUE(WaitAll(absl::MakeSpan(requests)).ok());
  for (const Call& call : calls) ExpectResult(call);
  std::vector<int32_t> x(1);
  absl::Status after = comm_->IAllReduce(x.data(), x.data(), 1, DataType::kInt32, ReduceOp::kSum).Wait();
  EXPECT_EQ(after.code(), absl::StatusCode::kInvalidArgument) << after;
  EXPECT_THAT(std::string(after.message()), HasSubstr("after Finalize"));
}

// A rank that never issues the call: the others' requests fail with DeadlineExceeded from Wait, naming it, and the
// communicator is broken for the calls issued after it.
TEST_P(NonblockingTest, StalledRankFailsTheOthersWaitWithDeadlineExceeded) {
  if (n_ < 2) GTEST_SKIP() << "needs two ranks";
  comm_ = MakeWith(GetParam(), absl::Seconds(2));
  ASSERT_TRUE(AllRanks(comm_ != nullptr));
  const int stalled = n_ - 1;
  std::vector<int32_t> send(256, 1), recv(256, 0);
  if (me_ != stalled) {
    Request request = comm_->IAllReduce(send.data(), recv.data(), 256, DataType::kInt32, ReduceOp::kSum);
    Request behind = comm_->IAllReduce(send.data(), recv.data(), 256, DataType::kInt32, ReduceOp::kSum);
    absl::Status status = request.Wait();
    EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
    absl::Status second = behind.Wait();
    EXPECT_FALSE(second.ok());
    EXPECT_FALSE(comm_->broken().ok());
  }
  // Every rank that waited has returned: the stalled one may go (on MPI_COMM_WORLD, which kcoll does not use).
  MPI_Barrier(MPI_COMM_WORLD);
  comm_.reset();
}

INSTANTIATE_TEST_SUITE_P(Progress, NonblockingTest, ::testing::Values(Progress::kThread, Progress::kEager),
                         [](const ::testing::TestParamInfo<Progress>& info) {
                           return std::string(ProgressName(info.param));
                         });

}  // namespace
}  // namespace testing
}  // namespace kcoll
