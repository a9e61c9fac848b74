// Argument checks through the public Communicator: each bad argument fails every rank given it with
// InvalidArgument naming the argument and its value, before any traffic (so no rank hangs). And the optional
// cross-rank check (CommunicatorOptions::check_args, $KCOLL_CHECK_ARGS=1): a rank called with a different count,
// type, op, root or algorithm fails every rank with a message naming that rank and field. And $KCOLL_ALGO's
// per-collective syntax as the Communicator resolves it.
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "collectives/algorithms/registry.h"
#include "collectives/communicator.h"
#include "gmock/gmock.h"
#include "tests/collective_test_util.h"
#include "tests/make_communicator.h"
#include "tests/matchers.h"
#include "tests/scoped_env.h"

namespace kcoll {
namespace testing {
namespace {

// True on every rank iff every rank's status is InvalidArgument containing `text`.
bool EveryRankRejects(const absl::Status& s, const std::string& text) {
  const bool ok = s.code() == absl::StatusCode::kInvalidArgument && s.message().find(text) != absl::string_view::npos;
  EXPECT_TRUE(ok) << "expected InvalidArgument with \"" << text << "\", got " << s;
  return AllRanks(ok);
}

std::unique_ptr<Communicator> Checked(bool check_args) {
  CommunicatorOptions options;
  options.backend = ExecBackend::kSerial;
  options.check_args = check_args;
  return MakeCommunicator(options);
}

class ArgsTest : public ::testing::Test {
 protected:
  void SetUp() override { comm_ = Checked(false); }
  std::unique_ptr<Communicator> comm_;
  const int rank_ = WorldRank();
  const int n_ = WorldSize();
  std::vector<float> a_ = std::vector<float>(64 * WorldSize(), 1.0f);
  std::vector<float> b_ = std::vector<float>(64 * WorldSize(), 1.0f);
};

TEST_F(ArgsTest, RootOutOfRangeIsRejectedByEveryRootedCollective) {
  const DataType f = DataType::kFloat32;
  for (int root : {n_, -1, n_ + 7}) {
    const std::string text = absl::StrCat("root ", root, " is not a rank in [0, ", n_, ")");
    EXPECT_TRUE(EveryRankRejects(comm_->Broadcast(a_.data(), b_.data(), 4, f, root), "broadcast: " + text));
    EXPECT_TRUE(EveryRankRejects(comm_->Reduce(a_.data(), b_.data(), 4, f, ReduceOp::kSum, root), "reduce: " + text));
    EXPECT_TRUE(EveryRankRejects(comm_->Gather(a_.data(), b_.data(), 4, f, root), "gather: " + text));
    EXPECT_TRUE(EveryRankRejects(comm_->Scatter(a_.data(), b_.data(), 4, f, root), "scatter: " + text));
  }
}

TEST_F(ArgsTest, AlgorithmThatDoesNotApplyIsRefused) {
  const DataType f = DataType::kFloat32;
  CallOptions ring, chain, halving;
  ring.algorithm = Algorithm::kRing;
  chain.algorithm = Algorithm::kChain;
  halving.algorithm = Algorithm::kHalvingDoubling;
  EXPECT_TRUE(EveryRankRejects(comm_->AllToAll(a_.data(), b_.data(), 4, f, ring),
                               "algorithm 'ring' does not apply to alltoall (available: pairwise, bruck)"));
  EXPECT_TRUE(EveryRankRejects(
      comm_->Broadcast(a_.data(), b_.data(), 4, f, 0, halving),
      "algorithm 'halving_doubling' does not apply to broadcast (available: chain, tree, linear, direct)"));
  EXPECT_TRUE(EveryRankRejects(comm_->AllGather(a_.data(), b_.data(), 4, f, chain),
                               "algorithm 'chain' does not apply to all_gather"));
  EXPECT_TRUE(EveryRankRejects(comm_->Barrier(chain), "algorithm 'chain' does not apply to barrier"));
  EXPECT_TRUE(EveryRankRejects(comm_->SendRecv(a_.data(), b_.data(), 4, f, ring),
                               "algorithm 'ring' does not apply to sendrecv"));
}

TEST_F(ArgsTest, OverlappingBuffersThatAreNotInPlaceAreRejected) {
  const DataType f = DataType::kFloat32;
  EXPECT_TRUE(EveryRankRejects(comm_->AllReduce(a_.data(), a_.data() + 1, 8, f, ReduceOp::kSum),
                               "all_reduce: sendbuf and recvbuf overlap (recvbuf - sendbuf = 4 bytes) but not in "
                               "place, which needs sendbuf == recvbuf"));
  // AllGather in place is send == recv + rank * count; one element past that is not.
  EXPECT_TRUE(EveryRankRejects(comm_->AllGather(a_.data() + rank_ * 3 + 1, a_.data(), 3, f),
                               "which needs sendbuf == recvbuf + rank * count"));
  EXPECT_TRUE(EveryRankRejects(comm_->ReduceScatter(a_.data(), a_.data() + rank_ * 3 + 1, 3, f, ReduceOp::kSum),
                               "which needs recvbuf == sendbuf + rank * count"));
  // The in-place positions themselves are accepted (and the result checked in the collectives' own tests).
  EXPECT_TRUE(AllRanks(comm_->AllGather(a_.data() + rank_ * 3, a_.data(), 3, f).ok()));
  EXPECT_TRUE(AllRanks(comm_->ReduceScatter(a_.data(), a_.data() + rank_ * 3, 3, f, ReduceOp::kSum).ok()));
}

TEST_F(ArgsTest, NullBuffersAreRejected) {
  EXPECT_TRUE(EveryRankRejects(comm_->AllToAll(nullptr, b_.data(), 4, DataType::kFloat32),
                               "alltoall: sendbuf is null with count 4"));
  EXPECT_TRUE(EveryRankRejects(comm_->ReduceScatter(a_.data(), nullptr, 4, DataType::kFloat32, ReduceOp::kMax),
                               "reduce_scatter: recvbuf is null with count 4"));
}

TEST_F(ArgsTest, RanksPerNodeMustDivideTheRankCount) {
  CommunicatorOptions options;
  options.ranks_per_node = n_ + 1;
  auto comm = Communicator::Create(MPI_COMM_WORLD, options);
  EXPECT_TRUE(EveryRankRejects(comm.status(), absl::StrCat("ranks_per_node: ", n_ + 1,
                                                           " does not divide the number "
                                                           "of ranks ",
                                                           n_)));
  ScopedEnv env("KCOLL_RANKS_PER_NODE", std::to_string(n_ + 1));
  auto from_env = Communicator::Create(MPI_COMM_WORLD);
  EXPECT_TRUE(EveryRankRejects(from_env.status(), "KCOLL_RANKS_PER_NODE: "));
}

TEST_F(ArgsTest, CheckArgsComesFromTheEnvironment) {
  {
    ScopedEnv env("KCOLL_CHECK_ARGS", "1");
    auto comm = Communicator::Create(MPI_COMM_WORLD);
    ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
    EXPECT_TRUE((*comm)->checks_args());
  }
  {
    ScopedEnv env("KCOLL_CHECK_ARGS", "yes");
    EXPECT_TRUE(
        EveryRankRejects(Communicator::Create(MPI_COMM_WORLD).status(), "KCOLL_CHECK_ARGS: 'yes' is not 0 or 1"));
  }
  EXPECT_FALSE(comm_->checks_args());
}

// The cross-rank check needs a second rank to disagree with.
class CheckArgsTest : public ArgsTest {
 protected:
  void SetUp() override {
    if (!AllRanks(WorldSize() >= 2)) GTEST_SKIP() << "needs at least two ranks";
    comm_ = Checked(true);
  }
};

TEST_F(CheckArgsTest, MatchingArgumentsRunNormally) {
  std::vector<int32_t> send(n_ * 5), recv(n_ * 5);
  for (size_t i = 0; i < send.size(); ++i) send[i] = rank_;
  ASSERT_TRUE(AllRanks(comm_->AllGather(send.data(), recv.data(), 5, DataType::kInt32).ok()));
  for (size_t i = 0; i < recv.size(); ++i) EXPECT_EQ(recv[i], static_cast<int32_t>(i / 5));
  ASSERT_TRUE(AllRanks(comm_->Barrier().ok()));
}

TEST_F(CheckArgsTest, DifferentCountOnOneRankFailsEveryRank) {
  const size_t count = rank_ == 1 ? 11 : 10;
  const absl::Status s = comm_->AllReduce(a_.data(), b_.data(), count, DataType::kFloat32, ReduceOp::kSum);
  EXPECT_TRUE(EveryRankRejects(s,
                               "all_reduce: arguments differ across ranks: rank 1 has count 11 but rank 0 has "
                               "count 10 (field 'count')"));
  // The communicator is still usable afterwards.
  EXPECT_TRUE(AllRanks(comm_->AllReduce(a_.data(), b_.data(), 10, DataType::kFloat32, ReduceOp::kSum).ok()));
}

TEST_F(CheckArgsTest, EveryComparedFieldIsNamed) {
  const bool odd = rank_ == n_ - 1;  // the last rank disagrees
  const std::string who = absl::StrCat("rank ", n_ - 1, " has ");
  const DataType f = DataType::kFloat32;
  EXPECT_TRUE(EveryRankRejects(comm_->AllReduce(a_.data(), b_.data(), 4, odd ? DataType::kInt32 : f, ReduceOp::kSum),
                               who + "type int32 but rank 0 has type float32"));
  EXPECT_TRUE(EveryRankRejects(comm_->Reduce(a_.data(), b_.data(), 4, f, odd ? ReduceOp::kMax : ReduceOp::kSum, 0),
                               who + "op max but rank 0 has op sum"));
  EXPECT_TRUE(EveryRankRejects(comm_->Broadcast(a_.data(), b_.data(), 4, f, odd ? 1 : 0),
                               who + "root 1 but rank 0 has root 0"));
  CallOptions tree, chain;
  tree.algorithm = Algorithm::kTree;
  chain.algorithm = Algorithm::kChain;
  EXPECT_TRUE(EveryRankRejects(comm_->Broadcast(a_.data(), b_.data(), 4, f, 0, odd ? tree : chain),
                               who + "algorithm tree but rank 0 has algorithm chain"));
  // Different collectives at the same time.
  const absl::Status s = odd ? comm_->Barrier() : comm_->AllToAll(a_.data(), b_.data(), 4, f);
  EXPECT_TRUE(EveryRankRejects(s, who + "barrier but rank 0 has alltoall (field 'collective')"));
  // Agreeing again, the ranks run normally.
  EXPECT_TRUE(AllRanks(comm_->AllGather(a_.data(), b_.data(), 4, f).ok()));
}

TEST_F(CheckArgsTest, AnAlgorithmChosenByEnvironmentOnOneRankIsCaught) {
  ScopedEnv env("KCOLL_ALGO", rank_ == 1 ? "broadcast=tree" : "broadcast=chain");
  comm_ = Checked(true);  // KCOLL_ALGO is read when a communicator is created
  EXPECT_TRUE(EveryRankRejects(comm_->Broadcast(a_.data(), b_.data(), 4, DataType::kFloat32, 0),
                               "rank 1 has algorithm tree but rank 0 has algorithm chain"));
}

TEST_F(CheckArgsTest, ARankThatRejectsItsOwnArgumentsFailsTheOthers) {
  // Only rank 1 passes a null receive buffer: without the check the others would wait for it.
  const absl::Status s = comm_->AllGather(a_.data(), rank_ == 1 ? nullptr : b_.data(), 4, DataType::kFloat32);
  EXPECT_TRUE(
      EveryRankRejects(s, rank_ == 1 ? "all_gather: recvbuf is null" : "all_gather: rank 1 rejected its arguments"));
}

// A registered algorithm of `collective` other than `not_this`.
Algorithm OtherAlgorithm(Collective collective, Algorithm not_this) {
  for (Algorithm a : AlgorithmsFor(collective)) {
    if (a != not_this) return a;
  }
  return not_this;
}

TEST_F(ArgsTest, AlgorithmOverridePerCollective) {
  // What kcoll would choose by itself, and for each an algorithm it would not.
  auto rs_auto = comm_->ResolveAlgorithm(Collective::kReduceScatter, 1 << 30, Algorithm::kAuto);
  auto bc_auto = comm_->ResolveAlgorithm(Collective::kBroadcast, 8, Algorithm::kAuto);
  ASSERT_TRUE(rs_auto.ok() && bc_auto.ok()) << rs_auto.status() << bc_auto.status();
  const Algorithm rs_other = OtherAlgorithm(Collective::kReduceScatter, *rs_auto);
  const Algorithm bc_other = OtherAlgorithm(Collective::kBroadcast, *bc_auto);
  ASSERT_NE(rs_other, *rs_auto);
  ASSERT_NE(bc_other, *bc_auto);

  const absl::StatusOr<Algorithm> a2a_auto = comm_->ResolveAlgorithm(Collective::kAllToAll, 8, Algorithm::kAuto);
  ASSERT_TRUE(a2a_auto.ok()) << a2a_auto.status();
  ScopedEnv env("KCOLL_ALGO",
                absl::StrCat("reduce_scatter=", AlgorithmName(rs_other), ", broadcast=", AlgorithmName(bc_other)));
  // KCOLL_ALGO is read when a communicator is created: the first one still chooses by itself.
  EXPECT_EQ(*comm_->ResolveAlgorithm(Collective::kBroadcast, 8, Algorithm::kAuto), *bc_auto);
  comm_ = Checked(false);
  auto rs = comm_->ResolveAlgorithm(Collective::kReduceScatter, 1 << 30, Algorithm::kAuto);
  ASSERT_TRUE(rs.ok()) << rs.status();
  EXPECT_EQ(*rs, rs_other);
  auto bc = comm_->ResolveAlgorithm(Collective::kBroadcast, 8, Algorithm::kAuto);
  ASSERT_TRUE(bc.ok()) << bc.status();
  EXPECT_EQ(*bc, bc_other);
  auto a2a = comm_->ResolveAlgorithm(Collective::kAllToAll, 8, Algorithm::kAuto);
  ASSERT_TRUE(a2a.ok()) << a2a.status();
  EXPECT_EQ(*a2a, *a2a_auto);  // not mentioned: kcoll's own choice, as without KCOLL_ALGO
  auto explicit_choice = comm_->ResolveAlgorithm(Collective::kBroadcast, 8, *bc_auto);
  ASSERT_TRUE(explicit_choice.ok());
  EXPECT_EQ(*explicit_choice, *bc_auto);  // the call's own choice wins over the environment
  // And the calls run with it.
  std::vector<int32_t> data(8, rank_ == 0 ? 7 : 0);
  ASSERT_TRUE(AllRanks(comm_->Broadcast(data.data(), data.data(), 8, DataType::kInt32, 0).ok()));
  for (int32_t v : data) EXPECT_EQ(v, 7);
}

TEST_F(ArgsTest, AlgorithmOverrideThatDoesNotApplyFailsTheCall) {
  ScopedEnv env("KCOLL_ALGO", "alltoall=ring");
  comm_ = Checked(false);
  EXPECT_TRUE(EveryRankRejects(comm_->AllToAll(a_.data(), b_.data(), 4, DataType::kFloat32),
                               "algorithm 'ring' does not apply to alltoall"));
}

TEST_F(ArgsTest, MalformedAlgorithmOverrideFailsTheCall) {
  ScopedEnv env("KCOLL_ALGO", "broadcast=fastest");
  comm_ = Checked(false);
  EXPECT_TRUE(EveryRankRejects(comm_->Broadcast(a_.data(), b_.data(), 4, DataType::kFloat32, 0), "KCOLL_ALGO: "));
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
