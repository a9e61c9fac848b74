// AllGatherV and AllToAllV through the public Communicator, for every transfer algorithm: counts that are equal, zero
// on some ranks, and different by orders of magnitude between ranks, with displacements that leave gaps and put the
// blocks in reverse rank order; every type (element sizes 1 to 8); AllGatherV and ReduceScatterV in place. Each rank's
// result is compared bit for bit with a local reference and with MPI_Allgatherv / MPI_Alltoallv, and what lies outside
// the blocks must stay untouched. Then the error paths: null arrays, a sendcount that is not recvcounts[rank],
// overlapping AllToAllV buffers, a byte size that overflows, and counts that differ across ranks (named with
// KCOLL_CHECK_ARGS, a DeadlineExceeded or a message-size error without it, never a wrong answer), and the nonblocking
// forms.
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collectives/communicator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/algorithm_param.h"
#include "tests/exact_values.h"
#include "tests/make_communicator.h"
#include "tests/mpi_reference.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace testing {
namespace {

using ::testing::HasSubstr;

// How many elements rank `from` has for rank `to` in pattern `p` (AllGatherV ignores `to`).
enum class Pattern { kEqual, kSomeZero, kSkewed };
const Pattern kPatterns[] = {Pattern::kEqual, Pattern::kSomeZero, Pattern::kSkewed};

size_t CountOf(Pattern p, int from, int to) {
  switch (p) {
    case Pattern::kEqual:
      return 5;
    case Pattern::kSomeZero:  // every third rank sends nothing, and nothing goes to the last rank from rank 0
      return from % 3 == 1 || (from == 0 && to == WorldSize() - 1) ? 0 : 3 + (from + to) % 4;
    case Pattern::kSkewed:  // 1, 10, 100 or 1000 elements by rank
      return size_t{1} * (from % 4 == 0 ? 1 : from % 4 == 1 ? 10 : from % 4 == 2 ? 100 : 1000) + to % 2;
  }
  return 0;
}

std::string PatternName(Pattern p) {
  return p == Pattern::kEqual ? "equal" : p == Pattern::kSomeZero ? "some-zero" : "skewed";
}

// Displacements for `counts`: blocks in reverse rank order with a gap of 2 elements after each.
std::vector<size_t> ReversedWithGaps(const std::vector<size_t>& counts, size_t* extent) {
  std::vector<size_t> displs(counts.size());
  size_t at = 0;
  for (int j = static_cast<int>(counts.size()) - 1; j >= 0; --j) {
    displs[j] = at;
    at += counts[j] + 2;
  }
  *extent = at;
  return displs;
}

// Element i of rank `from`'s block for rank `to`.
double ValueOf(DataType type, int from, int to, size_t i) { return PatternValue(type, from * 7 + to, i); }

std::vector<int> AsInts(const std::vector<size_t>& v) { return std::vector<int>(v.begin(), v.end()); }

class VCollectivesTest : public ::testing::TestWithParam<Algorithm> {
 protected:
  void SetUp() override { comm_ = MakeSerialCommunicator(); }
  CallOptions Options() const {
    CallOptions o;
    o.algorithm = GetParam();
    return o;
  }
  std::unique_ptr<Communicator> comm_;
  const int rank_ = WorldRank();
  const int n_ = WorldSize();
};

class AllGatherVTest : public VCollectivesTest {};
class AllToAllVTest : public VCollectivesTest {};
class ReduceScatterVTest : public VCollectivesTest {};
class RootedVTest : public VCollectivesTest {};  // GatherV and ScatterV: one algorithm each, every root

TEST_P(AllGatherVTest, EveryPatternAndTypeIsBitExact) {
  ASSERT_TRUE(AllRanks(comm_ != nullptr));
  for (Pattern p : kPatterns) {
    for (DataType type : AllDataTypes()) {
      for (bool in_place : {false, true}) {
        const std::string what = absl::StrCat(PatternName(p), " ", DataTypeName(type), in_place ? " in place" : "");
        const size_t elem = DataTypeSize(type);
        std::vector<size_t> counts(n_);
        for (int j = 0; j < n_; ++j) counts[j] = CountOf(p, j, 0);
        size_t extent = 0;
        const std::vector<size_t> displs = ReversedWithGaps(counts, &extent);
        const std::vector<char> mine =
            MakeBuffer(type, counts[rank_], [&](size_t i) { return ValueOf(type, rank_, 0, i); });
        std::vector<char> recv = SentinelBuffer(type, extent);
        if (in_place && !mine.empty()) std::memcpy(recv.data() + displs[rank_] * elem, mine.data(), mine.size());
        const void* send = in_place ? static_cast<const void*>(recv.data() + displs[rank_] * elem) : mine.data();
        const absl::Status status =
            comm_->AllGatherV(send, counts[rank_], recv.data(), counts.data(), displs.data(), type, Options());
        ASSERT_TRUE(AllRanks(status.ok())) << what << ": " << status;
        std::vector<char> expected = SentinelBuffer(type, extent);
        for (int j = 0; j < n_; ++j) {
          for (size_t i = 0; i < counts[j]; ++i) EncodeAt(type, expected.data(), displs[j] + i, ValueOf(type, j, 0, i));
        }
        EXPECT_TRUE(expected == recv) << what << ": differs from the reference";
        if (IsHalfPrecision(type)) continue;  // MPI has no 16-bit float type; the reference above covers them
        std::vector<char> mpi = SentinelBuffer(type, extent);
        const std::vector<int> icounts = AsInts(counts), idispls = AsInts(displs);
        MPI_Allgatherv(mine.data(), icounts[rank_], ReferenceTypeOf(type), mpi.data(), icounts.data(), idispls.data(),
                       ReferenceTypeOf(type), MPI_COMM_WORLD);
        EXPECT_EQ(mpi, recv) << what << ": differs from MPI_Allgatherv";
      }
      ASSERT_TRUE(AllRanks(!HasFailure()));
    }
  }
}

TEST_P(AllToAllVTest, EveryPatternAndTypeIsBitExact) {
  ASSERT_TRUE(AllRanks(comm_ != nullptr));
  for (Pattern p : kPatterns) {
    for (DataType type : AllDataTypes()) {
      const std::string what = absl::StrCat(PatternName(p), " ", DataTypeName(type));
      const size_t elem = DataTypeSize(type);
      std::vector<size_t> sendcounts(n_), recvcounts(n_);
      for (int j = 0; j < n_; ++j) {
        sendcounts[j] = CountOf(p, rank_, j);
        recvcounts[j] = CountOf(p, j, rank_);
      }
      size_t send_extent = 0, recv_extent = 0;
      const std::vector<size_t> senddispls = ReversedWithGaps(sendcounts, &send_extent);
      const std::vector<size_t> recvdispls = ReversedWithGaps(recvcounts, &recv_extent);
      std::vector<char> send = SentinelBuffer(type, send_extent);
      for (int j = 0; j < n_; ++j) {
        for (size_t i = 0; i < sendcounts[j]; ++i) {
          EncodeAt(type, send.data(), senddispls[j] + i, ValueOf(type, rank_, j, i));
        }
      }
      const std::vector<char> input = send;
      std::vector<char> recv = SentinelBuffer(type, recv_extent);
      const absl::Status status = comm_->AllToAllV(send.data(), sendcounts.data(), senddispls.data(), recv.data(),
                                                   recvcounts.data(), recvdispls.data(), type, Options());
      ASSERT_TRUE(AllRanks(status.ok())) << what << ": " << status;
      std::vector<char> expected = SentinelBuffer(type, recv_extent);
      for (int j = 0; j < n_; ++j) {
        for (size_t i = 0; i < recvcounts[j]; ++i) {
          EncodeAt(type, expected.data(), recvdispls[j] + i, ValueOf(type, j, rank_, i));
        }
      }
      EXPECT_TRUE(expected == recv) << what << ": differs from the reference";
      EXPECT_EQ(send, input) << what << ": the send buffer changed";
      if (IsHalfPrecision(type)) continue;
      std::vector<char> mpi = SentinelBuffer(type, recv_extent);
      const std::vector<int> isc = AsInts(sendcounts), isd = AsInts(senddispls), irc = AsInts(recvcounts),
                             ird = AsInts(recvdispls);
      MPI_Alltoallv(input.data(), isc.data(), isd.data(), ReferenceTypeOf(type), mpi.data(), irc.data(), ird.data(),
                    ReferenceTypeOf(type), MPI_COMM_WORLD);
      EXPECT_EQ(mpi, recv) << what << ": differs from MPI_Alltoallv";
      (void)elem;
    }
    ASSERT_TRUE(AllRanks(!HasFailure()));
  }
}

// A large skewed exchange: one rank sends 1 MiB to each peer, the others a few elements (several transport chunks).
TEST_P(AllToAllVTest, OneLargeSenderAmongSmallOnes) {
  ASSERT_TRUE(AllRanks(comm_ != nullptr));
  const DataType type = DataType::kInt32;
  auto count = [&](int from) { return from == n_ - 1 ? size_t{1} << 18 : size_t{3}; };
  std::vector<size_t> sendcounts(n_, count(rank_)), senddispls(n_), recvcounts(n_), recvdispls(n_);
  size_t at = 0;
  for (int j = 0; j < n_; ++j) {
    senddispls[j] = j * count(rank_);
    recvcounts[j] = count(j);
    recvdispls[j] = at;
    at += recvcounts[j];
  }
  std::vector<int32_t> send(n_ * count(rank_)), recv(at, -1);
  for (size_t i = 0; i < send.size(); ++i) send[i] = static_cast<int32_t>(rank_ * 1000003 + i);
  ASSERT_TRUE(AllRanks(comm_
                           ->AllToAllV(send.data(), sendcounts.data(), senddispls.data(), recv.data(),
                                       recvcounts.data(), recvdispls.data(), type, Options())
                           .ok()));
  int wrong = 0;
  for (int j = 0; j < n_; ++j) {
    for (size_t i = 0; i < recvcounts[j]; ++i) {
      if (recv[recvdispls[j] + i] != static_cast<int32_t>(j * 1000003 + rank_ * count(j) + i)) ++wrong;
    }
  }
  EXPECT_EQ(wrong, 0);
}

// Several in flight at once, then WaitAll; the arrays stay valid until then.
TEST_P(AllGatherVTest, NonblockingCallsInFlightTogether) {
  ASSERT_TRUE(AllRanks(comm_ != nullptr));
  const DataType type = DataType::kFloat64;
  std::vector<size_t> counts(n_), displs(n_);
  for (int j = 0; j < n_; ++j) {
    counts[j] = CountOf(Pattern::kSkewed, j, 0);
    displs[j] = std::accumulate(counts.begin(), counts.begin() + j, size_t{0});
  }
  const size_t total = std::accumulate(counts.begin(), counts.end(), size_t{0});
  std::vector<std::vector<double>> sends, recvs;
  for (int k = 0; k < 4; ++k) {
    sends.emplace_back(counts[rank_], rank_ * 10.0 + k);
    recvs.emplace_back(total, -1.0);
  }
  std::vector<Request> requests;
  for (int k = 0; k < 4; ++k) {
    requests.push_back(comm_->IAllGatherV(sends[k].data(), counts[rank_], recvs[k].data(), counts.data(), displs.data(),
                                          type, Options()));
  }
  ASSERT_TRUE(AllRanks(WaitAll(absl::MakeSpan(requests)).ok()));
  for (int k = 0; k < 4; ++k) {
    for (int j = 0; j < n_; ++j) {
      for (size_t i = 0; i < counts[j]; ++i) ASSERT_EQ(recvs[k][displs[j] + i], j * 10.0 + k) << k << " " << j;
    }
  }
}

TEST_P(ReduceScatterVTest, EveryPatternTypeAndOpIsBitExact) {
  ASSERT_TRUE(AllRanks(comm_ != nullptr));
  for (Pattern p : kPatterns) {
    for (DataType type : AllDataTypes()) {
      for (ReduceOp op : AllReduceOps()) {
        std::vector<size_t> counts(n_), offset(n_ + 1, 0);
        for (int j = 0; j < n_; ++j) {
          counts[j] = CountOf(p, j, 1);
          offset[j + 1] = offset[j] + counts[j];
        }
        const size_t elem = DataTypeSize(type);
        const std::vector<char> send =
            MakeBuffer(type, offset[n_], [&](size_t i) { return ExactInput(type, op, rank_, i); });
        std::vector<char> expected = SentinelBuffer(type, counts[rank_] + 1);
        for (size_t i = 0; i < counts[rank_]; ++i) {
          EncodeAt(type, expected.data(), i, ExactReduction(type, op, n_, offset[rank_] + i));
        }
        for (bool in_place : {false, true}) {
          const std::string what =
              absl::StrCat(PatternName(p), " ", DataTypeName(type), " ", ReduceOpName(op), in_place ? " in place" : "");
          // In place: one buffer, the result landing on this rank's own block of the input.
          std::vector<char> buffer = send;
          std::vector<char> recv = SentinelBuffer(type, counts[rank_] + 1);
          char* into = in_place ? buffer.data() + offset[rank_] * elem : recv.data();
          const absl::Status status =
              comm_->ReduceScatterV(in_place ? buffer.data() : send.data(), into, counts.data(), type, op, Options());
          ASSERT_TRUE(AllRanks(status.ok())) << what << ": " << status;
          if (in_place) {
            EXPECT_EQ(std::memcmp(into, expected.data(), counts[rank_] * elem), 0) << what << ": differs";
          } else {
            EXPECT_TRUE(expected == recv) << what << ": differs from the reference (or wrote past its block)";
          }
        }
        if (IsHalfPrecision(type)) continue;
        std::vector<char> recv = SentinelBuffer(type, counts[rank_] + 1);
        ASSERT_TRUE(AllRanks(comm_->ReduceScatterV(send.data(), recv.data(), counts.data(), type, op, Options()).ok()));
        std::vector<char> mpi_in = ToMpiBuffer(type, send.data(), offset[n_]);
        std::vector<char> mpi_out(std::max<size_t>(counts[rank_], 1) * MpiElementSize(type));
        const std::vector<int> icounts = AsInts(counts);
        MPI_Reduce_scatter(mpi_in.data(), mpi_out.data(), icounts.data(), ReferenceTypeOf(type), ReferenceOpOf(op),
                           MPI_COMM_WORLD);
        const std::vector<char> mpi = FromMpiBuffer(type, mpi_out, counts[rank_], op, n_);
        EXPECT_TRUE(mpi.empty() || std::memcmp(mpi.data(), recv.data(), mpi.size()) == 0)
            << PatternName(p) << " " << DataTypeName(type) << " " << ReduceOpName(op)
            << ": differs from MPI_Reduce_scatter";
      }
      ASSERT_TRUE(AllRanks(!HasFailure()));
    }
  }
}

// Blocks of several pieces (the linear schedule sends 64 KiB pieces between ranks that share memory): uneven counts
// that do not divide into pieces, one rank's block empty, out of place and in place.
TEST_P(ReduceScatterVTest, BlocksOfManyPiecesAndAnEmptyOne) {
  ASSERT_TRUE(AllRanks(comm_ != nullptr));
  for (DataType type : {DataType::kFloat64, DataType::kInt32}) {
    std::vector<size_t> counts(n_), offset(n_ + 1, 0);
    for (int j = 0; j < n_; ++j) {
      counts[j] = j == n_ / 2 && n_ > 1 ? 0 : 20000 + 4099 * j;
      offset[j + 1] = offset[j] + counts[j];
    }
    const size_t elem = DataTypeSize(type);
    const std::vector<char> send =
        MakeBuffer(type, offset[n_], [&](size_t i) { return ExactInput(type, ReduceOp::kSum, rank_, i); });
    std::vector<char> expected(counts[rank_] * elem);
    for (size_t i = 0; i < counts[rank_]; ++i) {
      EncodeAt(type, expected.data(), i, ExactReduction(type, ReduceOp::kSum, n_, offset[rank_] + i));
    }
    for (bool in_place : {false, true}) {
      std::vector<char> buffer = send, recv(std::max<size_t>(expected.size(), 1));
      char* into = in_place ? buffer.data() + offset[rank_] * elem : recv.data();
      const absl::Status status = comm_->ReduceScatterV(in_place ? buffer.data() : send.data(), into, counts.data(),
                                                        type, ReduceOp::kSum, Options());
      ASSERT_TRUE(AllRanks(status.ok())) << DataTypeName(type) << (in_place ? " in place" : "") << ": " << status;
      EXPECT_EQ(std::memcmp(into, expected.data(), expected.size()), 0)
          << DataTypeName(type) << (in_place ? " in place" : "") << ": differs from the reference";
    }
  }
  ASSERT_TRUE(AllRanks(!HasFailure()));
}

TEST_P(RootedVTest, GatherVAndScatterVFromEveryRoot) {
  ASSERT_TRUE(AllRanks(comm_ != nullptr));
  const DataType type = DataType::kInt32;
  for (Pattern p : kPatterns) {
    for (int root = 0; root < n_; ++root) {
      for (bool in_place : {false, true}) {
        const std::string what = absl::StrCat(PatternName(p), " root ", root, in_place ? " in place" : "");
        const size_t elem = DataTypeSize(type);
        std::vector<size_t> counts(n_);
        for (int j = 0; j < n_; ++j) counts[j] = CountOf(p, j, root);
        size_t extent = 0;
        const std::vector<size_t> displs = ReversedWithGaps(counts, &extent);
        const bool at_root = rank_ == root;
        // GatherV: the counts only on the root (null elsewhere, as MPI allows).
        const std::vector<char> mine =
            MakeBuffer(type, counts[rank_], [&](size_t i) { return ValueOf(type, rank_, root, i); });
        std::vector<char> gathered = SentinelBuffer(type, extent);
        if (in_place && at_root && !mine.empty())
          std::memcpy(gathered.data() + displs[root] * elem, mine.data(), mine.size());
        const void* send = in_place && at_root ? gathered.data() + displs[root] * elem : mine.data();
        absl::Status status =
            comm_->GatherV(send, counts[rank_], at_root ? gathered.data() : nullptr, at_root ? counts.data() : nullptr,
                           at_root ? displs.data() : nullptr, type, root, Options());
        ASSERT_TRUE(AllRanks(status.ok())) << what << ": " << status;
        if (at_root) {
          std::vector<char> expected = SentinelBuffer(type, extent);
          for (int j = 0; j < n_; ++j) {
            for (size_t i = 0; i < counts[j]; ++i) {
              EncodeAt(type, expected.data(), displs[j] + i, ValueOf(type, j, root, i));
            }
          }
          EXPECT_TRUE(expected == gathered) << what << ": GatherV differs from the reference";
        }
        std::vector<char> mpi = SentinelBuffer(type, extent);
        const std::vector<int> icounts = AsInts(counts), idispls = AsInts(displs);
        MPI_Gatherv(mine.data(), icounts[rank_], MPI_INT32_T, mpi.data(), icounts.data(), idispls.data(), MPI_INT32_T,
                    root, MPI_COMM_WORLD);
        if (at_root) {
          EXPECT_EQ(mpi, gathered) << what << ": differs from MPI_Gatherv";
        }
        // ScatterV: the root's blocks back to their ranks.
        std::vector<char> scattered = SentinelBuffer(type, counts[rank_] + 1);
        void* recv = in_place && at_root ? gathered.data() + displs[root] * elem : scattered.data();
        status = comm_->ScatterV(at_root ? gathered.data() : nullptr, at_root ? counts.data() : nullptr,
                                 at_root ? displs.data() : nullptr, recv, counts[rank_], type, root, Options());
        ASSERT_TRUE(AllRanks(status.ok())) << what << ": " << status;
        if (!(in_place && at_root)) {
          std::vector<char> expected = SentinelBuffer(type, counts[rank_] + 1);
          if (!mine.empty()) std::memcpy(expected.data(), mine.data(), mine.size());
          EXPECT_TRUE(expected == scattered) << what << ": ScatterV differs (or wrote past its block)";
        }
      }
      ASSERT_TRUE(AllRanks(!HasFailure()));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Algorithms, ReduceScatterVTest,
                         ::testing::ValuesIn(TransferAlgorithmsFor(Collective::kReduceScatterV)), AlgorithmParamName);
INSTANTIATE_TEST_SUITE_P(Algorithms, RootedVTest, ::testing::ValuesIn(TransferAlgorithmsFor(Collective::kGatherV)),
                         AlgorithmParamName);
INSTANTIATE_TEST_SUITE_P(Algorithms, AllGatherVTest,
                         ::testing::ValuesIn(TransferAlgorithmsFor(Collective::kAllGatherV)), AlgorithmParamName);
INSTANTIATE_TEST_SUITE_P(Algorithms, AllToAllVTest, ::testing::ValuesIn(TransferAlgorithmsFor(Collective::kAllToAllV)),
                         AlgorithmParamName);

// Bad arguments: an error naming the argument on the rank that has them; arguments every rank shares fail everywhere
// and the next call works.
TEST(VCollectivesErrors, BadArgumentsAreNamed) {
  auto comm = MakeSerialCommunicator();
  ASSERT_TRUE(AllRanks(comm != nullptr));
  const int n = WorldSize(), rank = WorldRank();
  std::vector<size_t> counts(n, 2), displs(n);
  for (int j = 0; j < n; ++j) displs[j] = 2 * j;
  std::vector<int32_t> send(2 * n, rank), recv(2 * n, 0);
  const DataType t = DataType::kInt32;
  EXPECT_THAT(comm->AllGatherV(send.data(), 2, recv.data(), nullptr, displs.data(), t).message(),
              HasSubstr("all_gatherv: recvcounts is null"));
  EXPECT_THAT(comm->AllGatherV(send.data(), 2, recv.data(), counts.data(), nullptr, t).message(),
              HasSubstr("all_gatherv: recvdispls is null"));
  EXPECT_THAT(comm->AllGatherV(send.data(), 3, recv.data(), counts.data(), displs.data(), t).message(),
              HasSubstr(absl::StrCat("all_gatherv: sendcount 3 differs from recvcounts[", rank, "] = 2")));
  std::vector<size_t> huge = displs;
  huge[0] = ~size_t{0} / 2;
  EXPECT_THAT(comm->AllGatherV(send.data(), 2, recv.data(), counts.data(), huge.data(), t).message(),
              HasSubstr("recvdispls[0]"));
  EXPECT_THAT(
      comm->AllToAllV(send.data(), counts.data(), displs.data(), recv.data(), counts.data(), nullptr, t).message(),
      HasSubstr("alltoallv: recvdispls is null"));
  EXPECT_THAT(
      comm->AllToAllV(send.data(), nullptr, displs.data(), recv.data(), counts.data(), displs.data(), t).message(),
      HasSubstr("alltoallv: sendcounts is null"));
  EXPECT_THAT(comm->AllToAllV(send.data(), counts.data(), displs.data(), send.data(), counts.data(), displs.data(), t)
                  .message(),
              HasSubstr("alltoallv has no in-place form"));
  // A root that rejects its counts: every rank of the rooted call fails, naming the root (the agreement).
  const absl::Status gatherv = comm->GatherV(send.data(), 2, rank == 0 ? recv.data() : nullptr,
                                             rank == 0 ? counts.data() : nullptr, nullptr, t, 0);
  EXPECT_EQ(gatherv.code(), absl::StatusCode::kInvalidArgument) << gatherv;
  EXPECT_THAT(gatherv.message(),
              HasSubstr(rank == 0 ? "gatherv: recvdispls is null" : "rank 0 rejected its arguments"));
  const absl::Status scatterv =
      comm->ScatterV(send.data(), counts.data(), displs.data(), recv.data(), rank == 0 ? 3 : 2, t, 0);
  EXPECT_THAT(scatterv.message(),
              HasSubstr(rank == 0 ? "scatterv: the root's recvcount 3 differs from its sendcounts[0]"
                                  : "rank 0 rejected its arguments"));
  EXPECT_THAT(comm->ReduceScatterV(send.data(), recv.data(), nullptr, t, ReduceOp::kSum).message(),
              HasSubstr("reduce_scatterv: recvcounts is null"));
  // Nothing moved: the next calls work.
  ASSERT_TRUE(AllRanks(comm->AllGatherV(send.data(), 2, recv.data(), counts.data(), displs.data(), t).ok()));
  for (int j = 0; j < n; ++j) EXPECT_EQ(recv[2 * j + 1], j);
  ASSERT_TRUE(AllRanks(
      comm->AllToAllV(send.data(), counts.data(), displs.data(), recv.data(), counts.data(), displs.data(), t).ok()));
  for (int j = 0; j < n; ++j) EXPECT_EQ(recv[2 * j], j);
}

// recvcounts that differ across ranks: with the argument check, every rank names it before any data moves.
TEST(VCollectivesErrors, CountsThatDifferAcrossRanksAreNamedWithTheCheck) {
  if (WorldSize() < 2) GTEST_SKIP() << "needs 2 or more ranks";
  CommunicatorOptions options;
  options.backend = ExecBackend::kSerial;
  options.check_args = true;
  auto comm = MakeCommunicator(options);
  ASSERT_TRUE(AllRanks(comm != nullptr));
  const int n = WorldSize(), rank = WorldRank();
  std::vector<size_t> counts(n, 2), displs(n);
  for (int j = 0; j < n; ++j) displs[j] = 3 * j;
  if (rank == 1) counts[0] = 3;  // rank 1 believes rank 0 sends 3
  std::vector<int32_t> send(3, rank), recv(3 * n, 0);
  const absl::Status status =
      comm->AllGatherV(send.data(), counts[rank], recv.data(), counts.data(), displs.data(), DataType::kInt32);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(), HasSubstr("all_gatherv: arguments differ across ranks"));
  std::vector<size_t> same(n, 2);
  ASSERT_TRUE(
      AllRanks(comm->AllGatherV(send.data(), 2, recv.data(), same.data(), displs.data(), DataType::kInt32).ok()));
  // AllToAllV: rank 0 expects 3 elements from rank 1, which sends 2; the transposed counts are compared.
  std::vector<size_t> sendcounts(n, 2), recvcounts(n, 2);
  if (rank == 0) recvcounts[1] = 3;
  std::vector<int32_t> big(3 * n, rank);
  const absl::Status a2a = comm->AllToAllV(big.data(), sendcounts.data(), displs.data(), recv.data(), recvcounts.data(),
                                           displs.data(), DataType::kInt32);
  EXPECT_EQ(a2a.code(), absl::StatusCode::kInvalidArgument) << a2a;
  EXPECT_THAT(a2a.message(), HasSubstr(rank == 0 ? "rank 1 sends 2 elements to rank 0, whose recvcounts[1] = 3"
                                                 : "rank 1's sendcounts[0] is not rank 0's recvcounts[1]"));
  ASSERT_TRUE(AllRanks(comm->AllToAllV(big.data(), sendcounts.data(), displs.data(), recv.data(), sendcounts.data(),
                                       displs.data(), DataType::kInt32)
                           .ok()));
}

// Without the check, on shared memory: the transport compares each message's size with its receive, so the rank
// that expected more fails instead of returning a half-filled block. (Over MPI a shorter message fits its receive;
// KCOLL_CHECK_ARGS compares the counts there, above.)
TEST(VCollectivesErrors, CountsThatDifferAcrossRanksFailWithoutTheCheck) {
  if (WorldSize() < 2) GTEST_SKIP() << "needs 2 or more ranks";
  if (!OneNodeOverSharedMemory()) {
    GTEST_SKIP() << "the message-size check is the shared-memory transport's; this run uses MPI between ranks";
  }
  auto comm = MakeSerialCommunicator(absl::Seconds(2));
  ASSERT_TRUE(AllRanks(comm != nullptr));
  const int n = WorldSize(), rank = WorldRank();
  std::vector<size_t> sendcounts(n, 2), recvcounts(n, 2), displs(n);
  for (int j = 0; j < n; ++j) displs[j] = 4 * j;
  if (rank == 0) recvcounts[1] = 4;  // rank 1 sends 2 to rank 0, which expects 4
  std::vector<int32_t> send(4 * n, rank), recv(4 * n, -1);
  CallOptions pairwise;
  pairwise.algorithm = Algorithm::kPairwise;
  const absl::Status status = comm->AllToAllV(send.data(), sendcounts.data(), displs.data(), recv.data(),
                                              recvcounts.data(), displs.data(), DataType::kInt32, pairwise);
  if (rank == 0) {
    EXPECT_FALSE(status.ok()) << "rank 0 expected 4 elements from rank 1, which sent 2";
    EXPECT_THAT(status.message(), HasSubstr("a message of 8 B from rank 1 for a receive of 16"));
  }
}

// Bruck's AllToAllV relays blocks whose sizes travel with them, so every transfer matches whatever the counts say:
// the rank whose final blocks disagree with its recv_counts names the sender (InvalidArgument) after taking part in
// every step, the other ranks finish, no rank waits for a timeout, and the next call is exact on every rank. Over any
// transport, without KCOLL_CHECK_ARGS.
TEST(VCollectivesErrors, BruckNamesTheSenderOfABlockOfAnotherSize) {
  if (WorldSize() < 2) GTEST_SKIP() << "needs 2 or more ranks";
  auto comm = MakeSerialCommunicator(absl::Seconds(20));
  ASSERT_TRUE(AllRanks(comm != nullptr));
  const int n = WorldSize(), rank = WorldRank();
  const int sender = n - 1;  // rank n-1 sends 2 elements to rank 0, which expects 3
  std::vector<size_t> sendcounts(n, 2), recvcounts(n, 2), displs(n);
  for (int j = 0; j < n; ++j) displs[j] = 4 * j;
  if (rank == 0) recvcounts[sender] = 3;
  std::vector<int32_t> send(4 * n, rank), recv(4 * n, -1);
  CallOptions bruck;
  bruck.algorithm = Algorithm::kBruck;
  const absl::Status status = comm->AllToAllV(send.data(), sendcounts.data(), displs.data(), recv.data(),
                                              recvcounts.data(), displs.data(), DataType::kInt32, bruck);
  if (rank == 0) {
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
    EXPECT_THAT(status.message(), HasSubstr(absl::StrCat("rank ", sender,
                                                         " sent 2 elements to rank 0, whose "
                                                         "recv_counts[",
                                                         sender, "] is 3")));
    EXPECT_EQ(recv, std::vector<int32_t>(4 * n, -1)) << "nothing is written when the sizes disagree";
  } else {
    EXPECT_TRUE(status.ok()) << status;
  }
  recvcounts.assign(n, 2);
  std::fill(recv.begin(), recv.end(), -1);
  ASSERT_TRUE(AllRanks(comm->AllToAllV(send.data(), sendcounts.data(), displs.data(), recv.data(), recvcounts.data(),
                                       displs.data(), DataType::kInt32, bruck)
                           .ok()));
  for (int j = 0; j < n; ++j) {
    EXPECT_EQ(recv[4 * j], j);
    EXPECT_EQ(recv[4 * j + 1], j);
    EXPECT_EQ(recv[4 * j + 2], -1);
  }
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
