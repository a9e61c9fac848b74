// A rooted collective whose arguments one rank rejects (the root's buffers are seen by the root alone; a non-root's
// by that rank alone) fails on every rank, with InvalidArgument naming the rejecting rank and its argument, before
// any data moves; no buffer is written, and the next call works on every rank. Without KCOLL_CHECK_ARGS and with
// no timeout: a rank left waiting would hang the test. Through the C++ calls, the Kokkos View wrappers and the C API.
#include <cstdint>
#include <string>
#include <vector>

#include "collectives/communicator.h"
#include "collectives/kcoll.h"
#include "collectives/views.h"
#include "gmock/gmock.h"
#include "tests/collective_test_util.h"
#include "tests/make_communicator.h"

namespace kcoll {
namespace testing {
namespace {

constexpr size_t kCount = 4;
constexpr int32_t kSentinel = -7;

// True on every rank iff every rank's status is InvalidArgument containing `text` (each rank passes its own).
bool EveryRankRejects(const absl::Status& s, const std::string& text) {
  const bool ok = s.code() == absl::StatusCode::kInvalidArgument && s.message().find(text) != absl::string_view::npos;
  EXPECT_TRUE(ok) << "expected InvalidArgument with \"" << text << "\", got " << s;
  return AllRanks(ok);
}

// The message the other ranks see when `rejecting` rejected `collective` with `own`.
std::string Relayed(absl::string_view collective, int rejecting, absl::string_view own) {
  return absl::StrCat(collective, ": rank ", rejecting, " rejected its arguments, so no rank ran the call: ", own);
}

struct Buffers {
  std::vector<int32_t> send, recv;
  explicit Buffers(int rank, int n) : send(kCount * n), recv(kCount * n, kSentinel) {
    for (size_t i = 0; i < send.size(); ++i) send[i] = static_cast<int32_t>(rank * 100 + i);
  }
  bool RecvUntouched() const {
    for (int32_t v : recv) {
      if (v != kSentinel) return false;
    }
    return true;
  }
};

// One rooted call in which rank `rejecting` passes a null buffer where it must pass one: the root's send (Broadcast,
// Scatter) or recv (Reduce, Gather), or a non-root's recv (Broadcast, Scatter) or send (Reduce, Gather).
absl::Status CallWithNullOn(Communicator& comm, Collective c, int root, int rejecting, Buffers& b, std::string* own) {
  const int rank = comm.rank();
  const bool at_root = rejecting == root;
  const bool null_send = (c == Collective::kBroadcast || c == Collective::kScatter) == at_root;
  const void* send = rank == rejecting && null_send ? nullptr : b.send.data();
  void* recv = rank == rejecting && !null_send ? nullptr : b.recv.data();
  *own = absl::StrCat(CollectiveName(c), null_send ? ": sendbuf" : ": recvbuf", " is null with count ", kCount);
  return comm.Call(c, send, recv, kCount, DataType::kInt32, ReduceOp::kSum, root);
}

// The communicator still works after a rejection: an AllReduce and the same rooted collective, both exact.
void ExpectInStep(Communicator& comm, Collective c, int root) {
  const int rank = comm.rank(), n = comm.size();
  std::vector<int32_t> mine(kCount, rank + 1), sum(kCount, 0);
  ASSERT_TRUE(AllRanks(comm.AllReduce(mine.data(), sum.data(), kCount, DataType::kInt32, ReduceOp::kSum).ok()));
  for (int32_t v : sum) EXPECT_EQ(v, n * (n + 1) / 2);
  Buffers b(rank, n);
  ASSERT_TRUE(AllRanks(comm.Call(c, b.send.data(), b.recv.data(), kCount, DataType::kInt32, ReduceOp::kSum, root).ok()))
      << CollectiveName(c);
  if (c == Collective::kBroadcast) {
    for (size_t i = 0; i < kCount; ++i) EXPECT_EQ(b.recv[i], root * 100 + static_cast<int32_t>(i));
  } else if (c == Collective::kReduce && rank == root) {
    for (size_t i = 0; i < kCount; ++i) EXPECT_EQ(b.recv[i], 100 * n * (n - 1) / 2 + n * static_cast<int32_t>(i));
  } else if (c == Collective::kGather && rank == root) {
    for (size_t i = 0; i < kCount * n; ++i) EXPECT_EQ(b.recv[i], static_cast<int32_t>(i / kCount * 100 + i % kCount));
  } else if (c == Collective::kScatter) {
    for (size_t i = 0; i < kCount; ++i) EXPECT_EQ(b.recv[i], root * 100 + static_cast<int32_t>(rank * kCount + i));
  }
}

const Collective kRooted[] = {Collective::kBroadcast, Collective::kReduce, Collective::kGather, Collective::kScatter};

class RootedRejectionTest : public ::testing::TestWithParam<bool> {  // the parameter: check_args
 protected:
  void SetUp() override {
    if (!AllRanks(WorldSize() >= 2)) GTEST_SKIP() << "needs a second rank to be left waiting";
    CommunicatorOptions options;
    options.backend = ExecBackend::kSerial;
    options.check_args = GetParam();
    options.timeout = absl::InfiniteDuration();
    comm_ = MakeCommunicator(options);
    ASSERT_TRUE(AllRanks(comm_ != nullptr));
  }
  std::unique_ptr<Communicator> comm_;
  const int rank_ = WorldRank();
  const int n_ = WorldSize();
};

TEST_P(RootedRejectionTest, TheRootRejectingFailsEveryRank) {
  for (Collective c : kRooted) {
    for (int root : {0, n_ - 1}) {
      Buffers b(rank_, n_);
      std::string own;
      const absl::Status s = CallWithNullOn(*comm_, c, root, /*rejecting=*/root, b, &own);
      ASSERT_TRUE(EveryRankRejects(s, rank_ == root ? own : Relayed(CollectiveName(c), root, own)))
          << CollectiveName(c) << " root " << root;
      EXPECT_TRUE(AllRanks(b.RecvUntouched())) << CollectiveName(c) << ": a buffer was written";
      ExpectInStep(*comm_, c, root);
    }
  }
}

TEST_P(RootedRejectionTest, ANonRootRejectingFailsEveryRank) {
  for (Collective c : kRooted) {
    const int root = 0, rejecting = n_ - 1;
    Buffers b(rank_, n_);
    std::string own;
    const absl::Status s = CallWithNullOn(*comm_, c, root, rejecting, b, &own);
    ASSERT_TRUE(EveryRankRejects(s, rank_ == rejecting ? own : Relayed(CollectiveName(c), rejecting, own)))
        << CollectiveName(c);
    EXPECT_TRUE(AllRanks(b.RecvUntouched())) << CollectiveName(c) << ": a buffer was written";
    ExpectInStep(*comm_, c, root);
  }
}

TEST_P(RootedRejectionTest, SeveralRanksRejectingNameTheLowest) {
  Buffers b(rank_, n_);
  // Every rank passes a null receive buffer to Gather: only the root's is an error (the others receive nothing).
  const absl::Status s = comm_->Gather(b.send.data(), nullptr, kCount, DataType::kInt32, /*root=*/1);
  const std::string own = absl::StrCat("gather: recvbuf is null with count ", kCount);
  ASSERT_TRUE(EveryRankRejects(s, rank_ == 1 ? own : Relayed("gather", 1, own)));
  // Every non-root rank rejects its null send buffer of a Reduce: rank 1 (the lowest) is named.
  const absl::Status r =
      comm_->Reduce(rank_ == 0 ? b.send.data() : nullptr, b.recv.data(), kCount, DataType::kInt32, ReduceOp::kSum, 0);
  const std::string reduce_own = absl::StrCat("reduce: sendbuf is null with count ", kCount);
  ASSERT_TRUE(EveryRankRejects(r, rank_ == 0 ? Relayed("reduce", 1, reduce_own) : reduce_own));
  ExpectInStep(*comm_, Collective::kGather, 1);
}

TEST_P(RootedRejectionTest, AViewWrapperRejectingAtTheRootFailsEveryRank) {
  const int root = n_ - 1;
  // The root's receive View is one element short: the wrapper rejects it before calling Gather.
  Kokkos::View<int32_t*, Kokkos::HostSpace> send("send", kCount);
  Kokkos::View<int32_t*, Kokkos::HostSpace> recv("recv", rank_ == root ? kCount * n_ - 1 : kCount * n_);
  const absl::Status s = Gather(*comm_, send, recv, root);
  EXPECT_TRUE(EveryRankRejects(s, rank_ == root ? "root's recv" : absl::StrCat("gather: rank ", root, " rejected")));
  ExpectInStep(*comm_, Collective::kGather, root);
}

INSTANTIATE_TEST_SUITE_P(CheckArgs, RootedRejectionTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("check_args") : std::string("unchecked");
                         });

// The C API, as an application written in C calls it: kcoll_gather with a NULL receive buffer on every rank, then an
// AllReduce, which must not hang; and a kcoll_broadcast whose type only the root gets wrong.
TEST(RootedRejectionCApiTest, GatherWithNullRecvEverywhereThenAllReduce) {
  if (!AllRanks(WorldSize() >= 2)) GTEST_SKIP() << "needs a second rank to be left waiting";
  const int rank = WorldRank(), n = WorldSize();
  kcoll_comm comm = nullptr;
  ASSERT_TRUE(AllRanks(kcoll_comm_create(MPI_COMM_WORLD, &comm) == KCOLL_OK)) << kcoll_error_string();
  std::vector<double> send(kCount, 1.0), recv(kCount * n, 0.0);
  const int gathered = kcoll_gather(comm, send.data(), nullptr, kCount, KCOLL_FLOAT64, 0);
  EXPECT_TRUE(AllRanks(gathered == KCOLL_INVALID_ARGUMENT)) << kcoll_status_name(gathered);
  EXPECT_THAT(kcoll_error_string(),
              ::testing::HasSubstr(rank == 0 ? "gather: recvbuf is null" : "gather: rank 0 rejected its arguments"));
  ASSERT_TRUE(AllRanks(kcoll_allreduce(comm, send.data(), recv.data(), kCount, KCOLL_FLOAT64, KCOLL_SUM) == KCOLL_OK))
      << kcoll_error_string();
  for (size_t i = 0; i < kCount; ++i) EXPECT_EQ(recv[i], static_cast<double>(n));
  const kcoll_datatype type = rank == 0 ? static_cast<kcoll_datatype>(999) : KCOLL_FLOAT64;
  const int broadcast = kcoll_broadcast(comm, send.data(), recv.data(), kCount, type, 0);
  EXPECT_TRUE(AllRanks(broadcast == KCOLL_INVALID_ARGUMENT)) << kcoll_status_name(broadcast);
  EXPECT_THAT(kcoll_error_string(), ::testing::HasSubstr(rank == 0 ? "type: 999" : "broadcast: rank 0 rejected"));
  ASSERT_TRUE(AllRanks(kcoll_barrier(comm) == KCOLL_OK)) << kcoll_error_string();
  EXPECT_EQ(kcoll_comm_free(comm), KCOLL_OK);
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
