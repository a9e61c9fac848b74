// Registered buffers (Communicator::Allocate) and the zero-copy `direct` algorithm that runs on them.
//
// The matrix: AllReduce, ReduceScatter, AllGather and Broadcast on registered buffers, every type (and op), counts
// 0, 1, n-1, n+1 and one large odd count, roots first / middle / last, in place and out of place, with `auto` and
// with `direct` asked for; bit for bit against the exact reference and against the vendor MPI. Buffers sit at
// offsets inside their allocations, so that peers must find them by allocation and offset, not by base address.
// On one node over shared memory, `auto` must run `direct` (the counters say); elsewhere (KCOLL_TRANSPORT=mpi,
// emulated nodes) `auto` runs through transfers and `direct` fails cleanly.
//
// Then the fallbacks and errors: buffers registered on some ranks only, Allocate and Free misuse, ranks calling with
// different arguments, and a stalled rank under a timeout.
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collectives/communicator.h"
#include "collectives/views.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/collective_reference.h"
#include "tests/collective_test_util.h"
#include "tests/exact_values.h"
#include "tests/make_communicator.h"
#include "tests/matchers.h"
#include "tests/mpi_reference.h"
#include "tests/mpi_test_env.h"
#include "tests/scoped_env.h"

namespace kcoll {
namespace testing {
namespace {

uint64_t DirectCalls(const Communicator& comm, Collective c) {
  const CollectiveCounts* entry = comm.counters().Find(c, Algorithm::kDirect);
  return entry == nullptr ? 0 : entry->calls;
}

// Registered memory for one case: `bytes` at `offset` inside an allocation a little larger.
struct Registered {
  Registered(Communicator& comm, size_t bytes, size_t offset) : comm(comm), offset(offset) {
    auto allocated = comm.Allocate(bytes + offset + 1);
    EXPECT_TRUE(allocated.ok()) << allocated.status();
    base = allocated.ok() ? static_cast<char*>(*allocated) : nullptr;
  }
  ~Registered() {
    if (base != nullptr) {
      EXPECT_TRUE(comm.Free(base).ok());
    }
  }
  char* data() const { return base + offset; }
  Communicator& comm;
  size_t offset;
  char* base = nullptr;
};

// The matrix's two registered buffers (receive, separate send), allocated once and grown when a case needs more:
// Allocate and Free are collective, and on 16 oversubscribed ranks a pair of them per case was most of the test's
// time. Every case refills what it reads, so reusing the memory hides nothing from it.
class RegisteredPool {
 public:
  explicit RegisteredPool(Communicator& comm) : comm_(comm) {}
  ~RegisteredPool() {
    for (Slot& slot : slots_) {
      if (slot.base != nullptr) {
        EXPECT_TRUE(comm_.Free(slot.base).ok());
      }
    }
  }
  // `bytes` at `offset` in slot 0 or 1. `bound` must be the same on every rank (Allocate is collective): a bound on
  // bytes + offset for every rank of the case.
  char* Get(int which, size_t bytes, size_t offset, size_t bound) {
    Slot& slot = slots_[which];
    EXPECT_LE(bytes + offset, bound);
    if (bound > slot.capacity) {
      if (slot.base != nullptr) {
        EXPECT_TRUE(comm_.Free(slot.base).ok());
      }
      slot.capacity = std::max(bound, 2 * slot.capacity);
      auto allocated = comm_.Allocate(slot.capacity);
      EXPECT_TRUE(allocated.ok()) << allocated.status();
      slot.base = allocated.ok() ? static_cast<char*>(*allocated) : nullptr;
      if (slot.base == nullptr) slot.capacity = 0;
    }
    return slot.base == nullptr ? nullptr : slot.base + offset;
  }

 private:
  struct Slot {
    char* base = nullptr;
    size_t capacity = 0;
  };
  Communicator& comm_;
  Slot slots_[2];
};

// The vendor MPI's answer for the same inputs.
std::vector<char> MpiAnswer(Collective c, DataType type, ReduceOp op, const std::vector<char>& send, size_t count,
                            int root) {
  switch (c) {
    case Collective::kAllReduce:
      return MpiAllReduceOfExactInputs(type, op, count, MPI_COMM_WORLD);
    case Collective::kReduceScatter:
      return MpiReduceScatterBlock(type, op, send.data(), count, MPI_COMM_WORLD);
    case Collective::kAllGather:
      return MpiAllgather(type, send.data(), count, MPI_COMM_WORLD);
    case Collective::kBroadcast: {
      std::vector<char> data = WorldRank() == root ? send : std::vector<char>(count * DataTypeSize(type));
      return MpiBcast(type, data.data(), count, root, MPI_COMM_WORLD);
    }
    default:
      return {};
  }
}

// memcpy of a whole vector; an empty one has no data pointer to pass.
void CopyBytes(void* dst, const std::vector<char>& src) {
  if (!src.empty()) std::memcpy(dst, src.data(), src.size());
}

struct MatrixCase {
  Collective collective;
  DataType type;
  ReduceOp op;
  size_t count;
  int root;
  bool in_place;
  std::string Name() const {
    return absl::StrCat(CollectiveName(collective), " ",
                        CaseName(type, IsReduction(collective) ? &op : nullptr, count, in_place,
                                 collective == Collective::kBroadcast ? root : -1));
  }
};

// One case on registered buffers; collective over MPI_COMM_WORLD. Returns whether it passed on this rank.
bool RunCase(Communicator& comm, RegisteredPool& pool, const MatrixCase& m, Algorithm algorithm,
             size_t chunk_bytes = 0) {
  const int rank = WorldRank(), n = WorldSize();
  const size_t elem = DataTypeSize(m.type);
  const std::string name = absl::StrCat(m.Name(), " (", AlgorithmName(algorithm), ")");
  const std::vector<char> send = SendBuffer(m.collective, m.type, m.op, m.count, m.root, rank, n);
  const size_t recv_elems = RecvElements(m.collective, m.count, m.root, rank, n);
  // Offsets differ between ranks and between the two buffers. No rank's buffer exceeds count * n elements.
  const size_t bound = m.count * static_cast<size_t>(n) * elem + 256;
  char* const recv = pool.Get(0, std::max(recv_elems, SendElements(m.collective, m.count, m.root, rank, n)) * elem,
                              64 * static_cast<size_t>(rank % 3), bound);
  char* const separate = pool.Get(1, send.size(), 128, bound);
  if (recv == nullptr || separate == nullptr) return false;
  const std::vector<char> sentinel = SentinelBuffer(m.type, recv_elems);
  CopyBytes(recv, sentinel);
  const void* send_ptr = separate;
  CopyBytes(separate, send);
  if (m.in_place) {
    switch (m.collective) {
      case Collective::kAllGather:  // send is this rank's block of recv
        send_ptr = recv + static_cast<size_t>(rank) * m.count * elem;
        CopyBytes(recv + static_cast<size_t>(rank) * m.count * elem, send);
        break;
      case Collective::kReduceScatter:  // recv is this rank's block of send
        send_ptr = recv;
        CopyBytes(recv, send);
        break;
      default:  // the same buffer
        send_ptr = recv;
        CopyBytes(recv, send);
        break;
    }
  }
  void* recv_ptr = m.in_place && m.collective == Collective::kReduceScatter
                       ? recv + static_cast<size_t>(rank) * m.count * elem
                       : recv;
  CallOptions options;
  options.algorithm = algorithm;
  options.tuning.chunk_bytes = chunk_bytes;
  const uint64_t before = DirectCalls(comm, m.collective);
  const absl::Status status = comm.Call(m.collective, send_ptr, recv_ptr, m.count, m.type, m.op, m.root, options);
  const std::vector<char> mpi = MpiAnswer(m.collective, m.type, m.op, send, m.count, m.root);
  const bool direct = comm.CanRunZeroCopy();
  if (algorithm == Algorithm::kDirect && !direct) {
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << name << ": " << status;
    return status.code() == absl::StatusCode::kFailedPrecondition;
  }
  if (!status.ok()) {
    ADD_FAILURE() << name << ": " << status;
    return false;
  }
  const std::vector<char> expected = ExpectedRecv(m.collective, m.type, m.op, m.count, m.root, rank, n);
  bool ok = true;
  ::testing::AssertionResult same = SameElements(m.type, expected, recv_ptr, recv_elems);
  if (!same) {
    ADD_FAILURE() << name << ": " << same.message();
    ok = false;
  }
  const size_t compared = std::min(mpi.size(), recv_elems * elem);
  if (ok && compared > 0 && std::memcmp(mpi.data(), recv_ptr, compared) != 0) {
    ADD_FAILURE() << name << ": differs from the vendor MPI";
    ok = false;
  }
  const uint64_t ran_direct = DirectCalls(comm, m.collective) - before;
  const size_t buffer = std::max(recv_elems, send.size() / elem) * elem;
  const bool expect_direct = direct && (algorithm == Algorithm::kDirect || buffer >= Communicator::kAutoDirectMinBytes);
  if (ran_direct != (expect_direct ? 1u : 0u)) {
    ADD_FAILURE() << name << ": ran direct " << ran_direct << " time(s) where zero-copy is "
                  << (direct ? "available" : "unavailable");
    ok = false;
  }
  return ok;
}

class RegisteredMatrixTest : public ::testing::TestWithParam<Algorithm> {};

TEST_P(RegisteredMatrixTest, SmallCountsAreBitExact) {
  auto comm = MakeSerialCommunicator();
  ASSERT_TRUE(AllRanks(comm != nullptr));
  RegisteredPool pool(*comm);
  for (Collective c :
       {Collective::kAllReduce, Collective::kReduceScatter, Collective::kAllGather, Collective::kBroadcast}) {
    const std::vector<ReduceOp> ops = IsReduction(c) ? AllReduceOps() : std::vector<ReduceOp>{ReduceOp::kSum};
    const std::vector<int> roots = c == Collective::kBroadcast ? Roots() : std::vector<int>{0};
    for (DataType type : AllDataTypes()) {
      for (ReduceOp op : ops) {
        for (size_t count : SmallCounts()) {
          for (int root : roots) {
            for (bool in_place : {false, true})
              RunCase(*comm, pool, MatrixCase{c, type, op, count, root, in_place}, GetParam());
          }
        }
      }
      ASSERT_TRUE(AllRanks(!HasFailure())) << CollectiveName(c) << " " << DataTypeName(type);
    }
  }
}

TEST_P(RegisteredMatrixTest, LargeOddCountIsBitExact) {
  auto comm = MakeSerialCommunicator();
  ASSERT_TRUE(AllRanks(comm != nullptr));
  RegisteredPool pool(*comm);
  const int last = WorldSize() - 1;
  for (Collective c :
       {Collective::kAllReduce, Collective::kReduceScatter, Collective::kAllGather, Collective::kBroadcast}) {
    const size_t large = LargeCount(c);
    RunCase(*comm, pool, MatrixCase{c, DataType::kInt32, ReduceOp::kSum, large, 0, false}, GetParam());
    RunCase(*comm, pool, MatrixCase{c, DataType::kBfloat16, ReduceOp::kSum, large, last, true}, GetParam());
    ASSERT_TRUE(AllRanks(!HasFailure())) << CollectiveName(c);
  }
  // AllReduce's pipeline in many small chunks, so that ranks overtake each other between chunks.
  for (bool in_place : {false, true}) {
    RunCase(*comm, pool,
            MatrixCase{Collective::kAllReduce, DataType::kFloat32, ReduceOp::kSum, kLargeCount, 0, in_place},
            GetParam(), /*chunk_bytes=*/1000);
  }
}

INSTANTIATE_TEST_SUITE_P(Algorithms, RegisteredMatrixTest, ::testing::Values(Algorithm::kAuto, Algorithm::kDirect),
                         AlgorithmParamName);

// Buffers registered on even ranks only: `auto` runs through transfers and is exact; `direct` fails on every rank
// with FailedPrecondition before touching a buffer, and the communicator stays usable.
TEST(RegisteredFallbackTest, SomeRanksUnregistered) {
  auto comm = MakeSerialCommunicator();
  ASSERT_TRUE(AllRanks(comm != nullptr));
  const int rank = WorldRank(), n = WorldSize();
  // Large enough for `auto` to go zero-copy if every rank's buffer were registered.
  const size_t kCount = Communicator::kAutoDirectMinBytes / sizeof(int32_t);
  auto data = comm->Allocate(kCount * sizeof(int32_t));
  ASSERT_TRUE(AllRanks(data.ok()));
  std::vector<int32_t> plain(kCount);
  int32_t* buffer = rank % 2 == 0 ? static_cast<int32_t*>(*data) : plain.data();
  EXPECT_EQ(comm->IsRegistered(buffer, kCount * sizeof(int32_t)), rank % 2 == 0);
  for (size_t i = 0; i < kCount; ++i) buffer[i] = rank + static_cast<int32_t>(i % 7);
  const uint64_t before = DirectCalls(*comm, Collective::kAllReduce);
  absl::Status status = comm->AllReduce(buffer, buffer, kCount, DataType::kInt32, ReduceOp::kSum);
  ASSERT_TRUE(AllRanks(status.ok())) << status;
  for (size_t i = 0; i < kCount; ++i) {
    ASSERT_EQ(buffer[i], n * (n - 1) / 2 + n * static_cast<int32_t>(i % 7)) << "element " << i;
  }
  if (n > 1) {
    EXPECT_EQ(DirectCalls(*comm, Collective::kAllReduce), before) << "direct ran on a buffer registered on some ranks";
  }

  CallOptions direct;
  direct.algorithm = Algorithm::kDirect;
  status = comm->AllReduce(buffer, buffer, kCount, DataType::kInt32, ReduceOp::kSum, direct);
  if (n > 1 || !comm->CanRunZeroCopy()) {
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
    EXPECT_THAT(std::string(status.message()), HasSubstr("direct"));
    for (size_t i = 0; i < kCount; ++i) {
      ASSERT_EQ(buffer[i], n * (n - 1) / 2 + n * static_cast<int32_t>(i % 7)) << "a refused call wrote element " << i;
    }
  }
  EXPECT_TRUE(comm->broken().ok());
  int32_t one = 1;
  EXPECT_TRUE(comm->AllReduce(&one, &one, 1, DataType::kInt32, ReduceOp::kSum).ok());
  EXPECT_EQ(one, n);
  EXPECT_TRUE(comm->Free(*data).ok());
}

TEST(RegisteredErrorsTest, AllocateAndFreeMisuse) {
  auto comm = MakeSerialCommunicator();
  ASSERT_TRUE(AllRanks(comm != nullptr));
  const int rank = WorldRank(), n = WorldSize();
  int dummy = 0;
  absl::Status freed = comm->Free(&dummy);  // before any Allocate
  EXPECT_EQ(freed.code(), absl::StatusCode::kInvalidArgument) << freed;
  EXPECT_THAT(std::string(freed.message()), HasSubstr("Free: data"));

  auto zero = comm->Allocate(0);
  EXPECT_EQ(zero.status().code(), absl::StatusCode::kInvalidArgument) << zero.status();
  EXPECT_THAT(std::string(zero.status().message()), HasSubstr("bytes is 0"));

  // Rank 0 alone asks for nothing: every rank fails, the others naming rank 0.
  auto some = comm->Allocate(rank == 0 ? 0 : 64);
  EXPECT_FALSE(some.ok());
  EXPECT_THAT(std::string(some.status().message()), HasSubstr("Allocate failed on rank(s) 0"));

  // Sizes may differ between ranks.
  auto a = comm->Allocate(100 + 10 * static_cast<size_t>(rank));
  auto b = comm->Allocate(64);
  ASSERT_TRUE(AllRanks(a.ok() && b.ok()));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(*a) % 64, 0u);
  std::memset(*a, 0x5a, 100 + 10 * static_cast<size_t>(rank));
  EXPECT_TRUE(comm->IsRegistered(*a, 100 + 10 * static_cast<size_t>(rank)));
  EXPECT_FALSE(comm->IsRegistered(*a, 100 + 10 * static_cast<size_t>(rank) + 64));
  EXPECT_FALSE(comm->IsRegistered(&dummy, sizeof(dummy)));

  freed = comm->Free(static_cast<char*>(*a) + 8);  // not the start
  EXPECT_EQ(freed.code(), absl::StatusCode::kInvalidArgument) << freed;
  EXPECT_THAT(std::string(freed.message()), HasSubstr("not the start of memory this communicator allocated"));

  if (n > 1) {
    // Rank 0 frees a, the others b: refused on every rank, both still allocated.
    freed = comm->Free(rank == 0 ? *a : *b);
    EXPECT_EQ(freed.code(), absl::StatusCode::kInvalidArgument) << freed;
    EXPECT_THAT(std::string(freed.message()), HasSubstr("Free is collective"));
    EXPECT_TRUE(comm->IsRegistered(*a, 1));
    EXPECT_TRUE(comm->IsRegistered(*b, 1));
  }
  EXPECT_TRUE(comm->Free(*a).ok());
  EXPECT_TRUE(comm->Free(*b).ok());
  freed = comm->Free(*a);  // twice
  EXPECT_EQ(freed.code(), absl::StatusCode::kInvalidArgument) << freed;
  EXPECT_TRUE(comm->broken().ok());
}

// Ranks that call a zero-copy collective with different counts: InvalidArgument on every rank, nothing read, and the
// communicator still works.
TEST(RegisteredErrorsTest, DifferentArgumentsAreRefusedOnEveryRank) {
  auto comm = MakeSerialCommunicator(absl::Seconds(30));
  ASSERT_TRUE(AllRanks(comm != nullptr));
  const int rank = WorldRank(), n = WorldSize();
  if (!comm->CanRunZeroCopy() || n < 2) GTEST_SKIP() << "needs two ranks on one node over shared memory";
  auto data = comm->Allocate(64 * sizeof(float));
  ASSERT_TRUE(AllRanks(data.ok()));
  float* x = static_cast<float*>(*data);
  for (int i = 0; i < 64; ++i) x[i] = 1.0f;
  const size_t count = rank == 1 ? 32 : 64;
  CallOptions direct;
  direct.algorithm = Algorithm::kDirect;
  absl::Status status = comm->AllReduce(x, x, count, DataType::kFloat32, ReduceOp::kSum, direct);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("different arguments"));
  EXPECT_EQ(x[0], 1.0f);
  ASSERT_TRUE(AllRanks(comm->broken().ok()));
  status = comm->AllReduce(x, x, 64, DataType::kFloat32, ReduceOp::kSum, direct);
  ASSERT_TRUE(AllRanks(status.ok())) << status;
  EXPECT_EQ(x[63], static_cast<float>(n));
  EXPECT_TRUE(comm->Free(x).ok());
}

// A rank that does not come: the others return DeadlineExceeded naming it, and the communicator is broken.
TEST(RegisteredErrorsTest, StalledRankTimesOut) {
  constexpr absl::Duration kTimeout = absl::Milliseconds(500);
  auto comm = MakeSerialCommunicator(kTimeout);
  ASSERT_TRUE(AllRanks(comm != nullptr));
  const int rank = WorldRank(), n = WorldSize();
  if (!comm->CanRunZeroCopy() || n < 2) GTEST_SKIP() << "needs two ranks on one node over shared memory";
  auto data = comm->Allocate(1024 * sizeof(double));
  ASSERT_TRUE(AllRanks(data.ok()));
  double* x = static_cast<double*>(*data);
  CallOptions direct;
  direct.algorithm = Algorithm::kDirect;
  const int stalled = n - 1;
  if (rank != stalled) {
    const auto start = std::chrono::steady_clock::now();
    const absl::Status status = comm->AllReduce(x, x, 1024, DataType::kFloat64, ReduceOp::kSum, direct);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
    EXPECT_THAT(std::string(status.message()),
                HasSubstr(absl::StrCat("ranks whose transfers did not complete: ", stalled)));
    EXPECT_THAT(std::string(status.message()), HasSubstr("all_reduce"));
    EXPECT_LT(seconds, absl::ToDoubleSeconds(kTimeout) + 2.0);
    EXPECT_FALSE(comm->broken().ok());
  }
  // The stalled rank comes once the others have returned, and finds nobody.
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == stalled) {
    const absl::Status status = comm->AllReduce(x, x, 1024, DataType::kFloat64, ReduceOp::kSum, direct);
    EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(comm->AllReduce(x, x, 1, DataType::kFloat64, ReduceOp::kSum, direct).code(),
            absl::StatusCode::kFailedPrecondition);
}

// `auto` runs registered buffers zero-copy from Communicator::kAutoDirectMinBytes, and through the slots below.
TEST(RegisteredAutoTest, ZeroCopyFromTheThreshold) {
  auto comm = MakeSerialCommunicator();
  ASSERT_TRUE(AllRanks(comm != nullptr));
  const int rank = WorldRank(), n = WorldSize();
  const size_t count = Communicator::kAutoDirectMinBytes / sizeof(int32_t);
  auto data = comm->Allocate(count * sizeof(int32_t));
  ASSERT_TRUE(AllRanks(data.ok())) << data.status();
  int32_t* x = static_cast<int32_t*>(*data);
  for (size_t elements : {count - 1, count}) {
    for (size_t i = 0; i < elements; ++i) x[i] = rank + static_cast<int32_t>(i % 5);
    const uint64_t before = DirectCalls(*comm, Collective::kAllReduce);
    const absl::Status status = comm->AllReduce(x, x, elements, DataType::kInt32, ReduceOp::kSum);
    ASSERT_TRUE(AllRanks(status.ok())) << status;
    for (size_t i = 0; i < elements; ++i) {
      ASSERT_EQ(x[i], n * (n - 1) / 2 + n * static_cast<int32_t>(i % 5)) << elements << " elements, element " << i;
    }
    const bool expected = comm->CanRunZeroCopy() && elements == count;
    EXPECT_EQ(DirectCalls(*comm, Collective::kAllReduce) - before, expected ? 1u : 0u) << elements << " elements";
  }
  EXPECT_TRUE(comm->Free(x).ok());
}

// KCOLL_ALGO=direct asks for zero copy at every size, as CallOptions::algorithm does: registered buffers run it
// where the communicator can, and elsewhere every rank gets FailedPrecondition saying why.
TEST(RegisteredAutoTest, AlgoEnvironmentAsksForDirect) {
  ScopedEnv algo("KCOLL_ALGO", "direct");
  auto comm = MakeSerialCommunicator();
  ASSERT_TRUE(AllRanks(comm != nullptr));
  const int rank = WorldRank(), n = WorldSize();
  auto data = comm->Allocate(64 * sizeof(int32_t));
  ASSERT_TRUE(AllRanks(data.ok())) << data.status();
  int32_t* x = static_cast<int32_t*>(*data);
  for (int i = 0; i < 64; ++i) x[i] = rank + i;
  const uint64_t before = DirectCalls(*comm, Collective::kAllReduce);
  const absl::Status status = comm->AllReduce(x, x, 64, DataType::kInt32, ReduceOp::kSum);
  if (comm->CanRunZeroCopy()) {
    ASSERT_TRUE(AllRanks(status.ok())) << status;
    for (int i = 0; i < 64; ++i) ASSERT_EQ(x[i], n * (n - 1) / 2 + n * i) << "element " << i;
    EXPECT_EQ(DirectCalls(*comm, Collective::kAllReduce) - before, 1u);
  } else {
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
    EXPECT_THAT(std::string(status.message()), HasSubstr("needs a communicator whose ranks share one node"));
  }
  EXPECT_TRUE(comm->Free(x).ok());
}

// The View helper: an unmanaged host View over registered memory; collectives on it run zero-copy.
TEST(RegisteredViewTest, AllReduceOnRegisteredViews) {
  auto comm = MakeSerialCommunicator();
  ASSERT_TRUE(AllRanks(comm != nullptr));
  const int rank = WorldRank(), n = WorldSize();
  auto view = AllocateView<int64_t>(*comm, 333);
  ASSERT_TRUE(AllRanks(view.ok())) << view.status();
  for (size_t i = 0; i < 333; ++i) (*view)(i) = rank * 1000 + static_cast<int64_t>(i);
  const uint64_t before = DirectCalls(*comm, Collective::kAllReduce);
  CallOptions direct;
  direct.algorithm = comm->CanRunZeroCopy() ? Algorithm::kDirect : Algorithm::kAuto;
  const absl::Status status = AllReduce(*comm, *view, *view, ReduceOp::kSum, direct);
  ASSERT_TRUE(AllRanks(status.ok())) << status;
  for (size_t i = 0; i < 333; ++i) {
    ASSERT_EQ((*view)(i), 1000 * static_cast<int64_t>(n) * (n - 1) / 2 + n * static_cast<int64_t>(i));
  }
  EXPECT_EQ(DirectCalls(*comm, Collective::kAllReduce) - before, comm->CanRunZeroCopy() ? 1u : 0u);
  EXPECT_TRUE(FreeView(*comm, *view).ok());
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
