// Every collective through its Kokkos View overload (collectives/views.h), in place and out of place: results
// compared bit for bit with the expected values, for int32 and bfloat16 Views. And the overloads' own checks:
// extents that do not fit name both extents and fail on every rank, even when only the root can see the mismatch
// (with the cross-rank argument check on).
#include "collectives/views.h"

#include <Kokkos_Core.hpp>
#include <string>
#include <utility>

#include "gmock/gmock.h"
#include "tests/collective_test_util.h"
#include "tests/matchers.h"

namespace kcoll {
namespace testing {
namespace {

template <class T>
using HostView = Kokkos::View<T*, Kokkos::HostSpace>;

template <class T>
HostView<T> ViewOf(size_t count, double (*value)(DataType, int, size_t), int rank, size_t first = 0) {
  HostView<T> v("v", count);
  for (size_t i = 0; i < count; ++i) v(i) = Encode<T>(value(DataTypeOf<T>::value, rank, first + i));
  return v;
}

template <class T>
HostView<T> Sentinels(size_t count) {
  HostView<T> v("sentinel", count);
  for (size_t i = 0; i < count; ++i) v(i) = Encode<T>(kSentinel);
  return v;
}

double Pattern(DataType type, int rank, size_t i) { return PatternValue(type, rank, i); }
double SumInput(DataType type, int rank, size_t i) { return ExactInput(type, ReduceOp::kSum, rank, i); }

template <class T, class Fn>
::testing::AssertionResult ViewEquals(const HostView<T>& view, Fn expected) {
  for (size_t i = 0; i < view.size(); ++i) {
    const T want = Encode<T>(expected(i));
    if (std::memcmp(&want, &view(i), sizeof(T)) != 0) {
      return ::testing::AssertionFailure()
             << "element " << i << ": expected " << expected(i) << ", got " << Decode<T>(view(i));
    }
  }
  return ::testing::AssertionSuccess();
}

template <class T>
class ViewsTest : public ::testing::Test {
 protected:
  void SetUp() override { comm_ = MakeCommunicator(ExecBackend::kSerial); }
  std::unique_ptr<Communicator> comm_;
  const int rank_ = WorldRank();
  const int n_ = WorldSize();
  const size_t count_ = static_cast<size_t>(WorldSize()) + 1;
  const DataType type_ = DataTypeOf<T>::value;
};

using ViewTypes = ::testing::Types<int32_t, Bfloat16>;
TYPED_TEST_SUITE(ViewsTest, ViewTypes);

TYPED_TEST(ViewsTest, AllReduceAndReduceScatter) {
  using T = TypeParam;
  const size_t c = this->count_;
  const int n = this->n_, r = this->rank_;
  const DataType type = this->type_;
  auto send = ViewOf<T>(c, SumInput, r);
  auto recv = Sentinels<T>(c);
  ASSERT_TRUE(AllRanks(AllReduce(*this->comm_, send, recv, ReduceOp::kSum).ok()));
  EXPECT_TRUE(ViewEquals(recv, [&](size_t i) { return ExactReduction(type, ReduceOp::kSum, n, i); }));

  auto full = ViewOf<T>(c * n, SumInput, r);
  auto block = Sentinels<T>(c);
  ASSERT_TRUE(AllRanks(ReduceScatter(*this->comm_, full, block, ReduceOp::kSum).ok()));
  EXPECT_TRUE(ViewEquals(block, [&](size_t i) { return ExactReduction(type, ReduceOp::kSum, n, r * c + i); }));
  // In place: the rank's own block of the send view.
  auto mine = Kokkos::subview(full, std::make_pair(r * c, (r + 1) * c));
  ASSERT_TRUE(AllRanks(ReduceScatter(*this->comm_, full, mine, ReduceOp::kSum).ok()));
  auto mine_copy = Sentinels<T>(c);
  Kokkos::deep_copy(mine_copy, mine);
  EXPECT_TRUE(ViewEquals(mine_copy, [&](size_t i) { return ExactReduction(type, ReduceOp::kSum, n, r * c + i); }));
}

TYPED_TEST(ViewsTest, ScanAndExScanInAndOutOfPlace) {
  using T = TypeParam;
  const size_t c = this->count_;
  const int r = this->rank_;
  const DataType type = this->type_;
  auto send = ViewOf<T>(c, SumInput, r);
  auto recv = Sentinels<T>(c);
  ASSERT_TRUE(AllRanks(Scan(*this->comm_, send, recv, ReduceOp::kSum).ok()));
  EXPECT_TRUE(ViewEquals(recv, [&](size_t i) { return ExactReduction(type, ReduceOp::kSum, r + 1, i); }));
  auto exclusive = Sentinels<T>(c);
  Request pending = IExScan(*this->comm_, send, exclusive, ReduceOp::kSum);
  ASSERT_TRUE(AllRanks(pending.Wait().ok()));
  // Rank 0's recv is not written.
  EXPECT_TRUE(
      ViewEquals(exclusive, [&](size_t i) { return r == 0 ? kSentinel : ExactReduction(type, ReduceOp::kSum, r, i); }));
  ASSERT_TRUE(AllRanks(ExScan(*this->comm_, send, send, ReduceOp::kSum).ok()));  // in place
  EXPECT_TRUE(ViewEquals(
      send, [&](size_t i) { return r == 0 ? SumInput(type, 0, i) : ExactReduction(type, ReduceOp::kSum, r, i); }));
}

TYPED_TEST(ViewsTest, AllGatherVAndAllToAllV) {
  using T = TypeParam;
  const int n = this->n_, r = this->rank_;
  const DataType type = this->type_;
  // Rank j gathers j + 1 elements, blocks in rank order with a gap of one.
  std::vector<size_t> counts(n), displs(n);
  for (int j = 0; j < n; ++j) {
    counts[j] = j + 1;
    displs[j] = j == 0 ? 0 : displs[j - 1] + counts[j - 1] + 1;
  }
  const size_t extent = displs[n - 1] + counts[n - 1];
  auto send = ViewOf<T>(counts[r], Pattern, r);
  auto recv = Sentinels<T>(extent);
  ASSERT_TRUE(AllRanks(AllGatherV(*this->comm_, send, recv, counts, displs).ok()));
  std::vector<double> want(extent, kSentinel);
  for (int j = 0; j < n; ++j) {
    for (size_t i = 0; i < counts[j]; ++i) want[displs[j] + i] = PatternValue(type, j, i);
  }
  EXPECT_TRUE(ViewEquals(recv, [&](size_t i) { return want[i]; }));
  // AllToAllV with one element per pair, nonblocking: element j of rank r's send goes to rank j.
  std::vector<size_t> ones(n, 1), at(n);
  for (int j = 0; j < n; ++j) at[j] = j;
  auto mine = ViewOf<T>(n, Pattern, r);
  auto got = Sentinels<T>(n);
  Request pending = IAllToAllV(*this->comm_, mine, ones, at, got, ones, at);
  ASSERT_TRUE(AllRanks(pending.Wait().ok()));
  EXPECT_TRUE(ViewEquals(got, [&](size_t j) { return PatternValue(type, static_cast<int>(j), r); }));
  // A recv view too short for its blocks, and arrays of the wrong length: named, on this rank.
  auto short_recv = Sentinels<T>(extent - 1);
  EXPECT_THAT(std::string(AllGatherV(*this->comm_, send, short_recv, counts, displs).message()),
              HasSubstr(absl::StrCat("all_gatherv: recv view has ", extent - 1,
                                     " elements but its blocks reach element ", extent)));
  EXPECT_THAT(std::string(AllToAllV(*this->comm_, mine, std::vector<size_t>(n + 1, 1), at, got, ones, at).message()),
              HasSubstr(absl::StrCat("alltoallv: sendcounts has ", n + 1, " entries")));
}

TYPED_TEST(ViewsTest, ReduceScatterVGatherVAndScatterV) {
  using T = TypeParam;
  const int n = this->n_, r = this->rank_;
  const DataType type = this->type_;
  // Rank j's block has j + 1 elements (rank 0's none in the ReduceScatterV, to take a zero count), end to end.
  std::vector<size_t> counts(n), displs(n);
  for (int j = 0; j < n; ++j) {
    counts[j] = j == 0 ? 0 : j + 1;
    displs[j] = j == 0 ? 0 : displs[j - 1] + counts[j - 1];
  }
  const size_t total = displs[n - 1] + counts[n - 1];
  auto full = ViewOf<T>(total, SumInput, r);
  auto block = Sentinels<T>(counts[r] + 1);  // one element more than the block: left as it was
  Request reduced = IReduceScatterV(*this->comm_, full, block, counts, ReduceOp::kSum);
  ASSERT_TRUE(AllRanks(reduced.Wait().ok()));
  EXPECT_TRUE(ViewEquals(block, [&](size_t i) {
    return i < counts[r] ? ExactReduction(type, ReduceOp::kSum, n, displs[r] + i) : kSentinel;
  }));

  // GatherV to the last rank, with a gap of one element after each block; the arrays exist on the root only.
  const int root = n - 1;
  std::vector<size_t> gaps(n);
  for (int j = 0; j < n; ++j) gaps[j] = j == 0 ? 0 : gaps[j - 1] + counts[j - 1] + 1;
  const size_t extent = gaps[n - 1] + counts[n - 1];
  const bool at_root = r == root;
  // Named: a nonblocking call reads them until it completed.
  const std::vector<size_t> root_counts = at_root ? counts : std::vector<size_t>();
  const std::vector<size_t> root_gaps = at_root ? gaps : std::vector<size_t>();
  auto mine = ViewOf<T>(counts[r], Pattern, r);
  auto gathered = Sentinels<T>(at_root ? extent : 0);
  ASSERT_TRUE(AllRanks(GatherV(*this->comm_, mine, gathered, root_counts, root_gaps, root).ok()));
  if (at_root) {
    std::vector<double> want(extent, kSentinel);
    for (int j = 0; j < n; ++j) {
      for (size_t i = 0; i < counts[j]; ++i) want[gaps[j] + i] = PatternValue(type, j, i);
    }
    EXPECT_TRUE(ViewEquals(gathered, [&](size_t i) { return want[i]; }));
  }
  // ScatterV back from the root (nonblocking): every rank gets its own block again.
  auto back = Sentinels<T>(counts[r]);
  Request scattered = IScatterV(*this->comm_, gathered, root_counts, root_gaps, back, root);
  ASSERT_TRUE(AllRanks(scattered.Wait().ok()));
  EXPECT_TRUE(ViewEquals(back, [&](size_t i) { return PatternValue(type, r, i); }));

  // Extents the arrays do not fit, named on the rank that sees them; a root's rejection reaches every rank.
  auto short_full = Sentinels<T>(total - 1 + (total == 0 ? 1 : 0));
  if (total > 0) {
    EXPECT_THAT(std::string(ReduceScatterV(*this->comm_, short_full, block, counts, ReduceOp::kSum).message()),
                HasSubstr(absl::StrCat("reduce_scatterv: send view has ", total - 1,
                                       " elements but recvcounts add up to ", total)));
  }
  EXPECT_THAT(
      std::string(ReduceScatterV(*this->comm_, full, block, std::vector<size_t>(n + 1), ReduceOp::kSum).message()),
      HasSubstr(absl::StrCat("reduce_scatterv: recvcounts has ", n + 1, " entries")));
  if (extent == 0) return;  // one rank: no block to cut short
  auto short_gathered = Sentinels<T>(at_root ? extent - 1 : 0);
  absl::Status rejected = GatherV(*this->comm_, mine, short_gathered, root_counts, root_gaps, root);
  EXPECT_FALSE(rejected.ok());
  if (at_root) {
    EXPECT_THAT(std::string(rejected.message()),
                HasSubstr(absl::StrCat("gatherv: root's recv view has ", extent - 1,
                                       " elements but its blocks reach element ", extent)));
  }
  absl::Status scatter_rejected = ScatterV(*this->comm_, short_gathered, root_counts, root_gaps, back, root);
  EXPECT_FALSE(scatter_rejected.ok());
  // The communicator goes on: every rank's next call works.
  ASSERT_TRUE(AllRanks(GatherV(*this->comm_, mine, gathered, root_counts, root_gaps, root).ok()));
}

TYPED_TEST(ViewsTest, AllGatherInAndOutOfPlace) {
  using T = TypeParam;
  const size_t c = this->count_;
  const int n = this->n_, r = this->rank_;
  const DataType type = this->type_;
  auto expected = [&](size_t i) { return PatternValue(type, static_cast<int>(i / c), i % c); };
  auto send = ViewOf<T>(c, Pattern, r);
  auto recv = Sentinels<T>(c * n);
  ASSERT_TRUE(AllRanks(AllGather(*this->comm_, send, recv).ok()));
  EXPECT_TRUE(ViewEquals(recv, expected));

  auto gathered = Sentinels<T>(c * n);
  auto mine = Kokkos::subview(gathered, std::make_pair(r * c, (r + 1) * c));
  Kokkos::deep_copy(mine, send);
  ASSERT_TRUE(AllRanks(AllGather(*this->comm_, mine, gathered).ok()));
  EXPECT_TRUE(ViewEquals(gathered, expected));
}

TYPED_TEST(ViewsTest, BroadcastAndReduceFromTheLastRank) {
  using T = TypeParam;
  const size_t c = this->count_;
  const int n = this->n_, r = this->rank_, root = n - 1;
  const DataType type = this->type_;
  auto data = r == root ? ViewOf<T>(c, Pattern, root) : Sentinels<T>(c);
  ASSERT_TRUE(AllRanks(Broadcast(*this->comm_, data, root).ok()));  // in place
  EXPECT_TRUE(ViewEquals(data, [&](size_t i) { return PatternValue(type, root, i); }));
  auto out = Sentinels<T>(c);
  HostView<T> none;  // non-roots pass no send view
  ASSERT_TRUE(AllRanks(Broadcast(*this->comm_, r == root ? data : none, out, root).ok()));
  EXPECT_TRUE(ViewEquals(out, [&](size_t i) { return PatternValue(type, root, i); }));

  auto send = ViewOf<T>(c, SumInput, r);
  auto result = r == root ? Sentinels<T>(c) : HostView<T>();  // non-roots pass no recv view
  ASSERT_TRUE(AllRanks(Reduce(*this->comm_, send, result, ReduceOp::kSum, root).ok()));
  if (r == root) {
    EXPECT_TRUE(ViewEquals(result, [&](size_t i) { return ExactReduction(type, ReduceOp::kSum, n, i); }));
  }
}

TYPED_TEST(ViewsTest, AllToAllGatherScatterSendRecv) {
  using T = TypeParam;
  const size_t c = this->count_;
  const int n = this->n_, r = this->rank_, root = n / 2;
  const DataType type = this->type_;
  auto send = ViewOf<T>(c * n, Pattern, r);
  ASSERT_TRUE(AllRanks(AllToAll(*this->comm_, send, send).ok()));  // in place
  EXPECT_TRUE(ViewEquals(send, [&](size_t i) { return PatternValue(type, static_cast<int>(i / c), r * c + i % c); }));

  auto mine = ViewOf<T>(c, Pattern, r);
  auto gathered = r == root ? Sentinels<T>(c * n) : HostView<T>();
  ASSERT_TRUE(AllRanks(Gather(*this->comm_, mine, gathered, root).ok()));
  if (r == root) {
    EXPECT_TRUE(ViewEquals(gathered, [&](size_t i) { return PatternValue(type, static_cast<int>(i / c), i % c); }));
  }

  auto blocks = r == root ? ViewOf<T>(c * n, Pattern, root) : HostView<T>();
  auto block = Sentinels<T>(c);
  ASSERT_TRUE(AllRanks(Scatter(*this->comm_, blocks, block, root).ok()));
  EXPECT_TRUE(ViewEquals(block, [&](size_t i) { return PatternValue(type, root, r * c + i); }));

  auto from_left = Sentinels<T>(c);
  ASSERT_TRUE(AllRanks(SendRecv(*this->comm_, mine, from_left).ok()));
  EXPECT_TRUE(ViewEquals(from_left, [&](size_t i) { return PatternValue(type, (r - 1 + n) % n, i); }));
}

TYPED_TEST(ViewsTest, ExtentMismatchesNameBothExtents) {
  using T = TypeParam;
  Communicator& comm = *this->comm_;
  const int n = this->n_;
  const std::string ranks = absl::StrCat(" x ", n, " ranks = ");
  HostView<T> three("three", 3), four("four", 4);
  auto fails_with = [](const absl::Status& s, const std::string& text) {
    return AllRanks(s.code() == absl::StatusCode::kInvalidArgument) &&
           s.message().find(text) != absl::string_view::npos;
  };
  EXPECT_TRUE(fails_with(AllReduce(comm, three, four, ReduceOp::kSum),
                         "all_reduce: send view has 3 elements but recv view has 4"));
  EXPECT_TRUE(fails_with(ReduceScatter(comm, three, four, ReduceOp::kSum),
                         absl::StrCat("reduce_scatter: send view has 3 elements but recv view has 4", ranks)));
  EXPECT_TRUE(fails_with(AllGather(comm, three, four),
                         absl::StrCat("all_gather: recv view has 4 elements but send view has 3", ranks)));
  EXPECT_TRUE(fails_with(AllToAll(comm, three, four), "alltoall: send view has 3 elements but recv view has 4"));
  EXPECT_TRUE(fails_with(SendRecv(comm, three, four), "sendrecv: send view has 3 elements but recv view has 4"));
  EXPECT_TRUE(
      fails_with(Scan(comm, three, four, ReduceOp::kMax), "scan: send view has 3 elements but recv view has 4"));
  EXPECT_TRUE(fails_with(IExScan(comm, four, three, ReduceOp::kMin).Wait(),
                         "exscan: send view has 4 elements but recv view has 3"));
  if (n > 1) {
    HostView<T> odd("odd", n + 1);
    EXPECT_TRUE(fails_with(AllToAll(comm, odd, odd),
                           absl::StrCat("alltoall: view extent ", n + 1, " is not divisible by ", n, " ranks")));
  }
}

// Only the root can see that its extents are wrong; with the argument check on, the other ranks fail too (naming
// the root) instead of waiting for it.
TYPED_TEST(ViewsTest, RootOnlyMismatchFailsEveryRankWithTheArgumentCheck) {
  using T = TypeParam;
  CommunicatorOptions options;
  options.backend = ExecBackend::kSerial;
  options.check_args = true;
  auto checked = Communicator::Create(MPI_COMM_WORLD, options);
  ASSERT_TRUE(AllRanks(checked.ok())) << checked.status();
  Communicator& comm = **checked;
  const int r = this->rank_, root = this->n_ - 1;
  HostView<T> three("three", 3), four("four", 4);
  const absl::Status s = Broadcast(comm, r == root ? four : three, three, root);
  ASSERT_TRUE(AllRanks(s.code() == absl::StatusCode::kInvalidArgument)) << s;
  if (r == root) {
    EXPECT_THAT(std::string(s.message()), HasSubstr("broadcast: root's send view has 4 elements but recv view has 3"));
  } else {
    EXPECT_THAT(std::string(s.message()), HasSubstr(absl::StrCat("rank ", root, " rejected its arguments")));
  }
  const absl::Status g = Gather(comm, three, four, root);
  ASSERT_TRUE(AllRanks(g.code() == absl::StatusCode::kInvalidArgument)) << g;
  if (r == root) {
    EXPECT_THAT(std::string(g.message()), HasSubstr("gather: root's recv view has 4 elements but send view has 3"));
  }
}

// The nonblocking forms: several in flight at once give what the blocking ones give, and a root that rejects its
// extents fails every rank's request (the agreement of a rooted call), after which the next call works.
TYPED_TEST(ViewsTest, NonblockingFormsInFlightTogether) {
  using T = TypeParam;
  const size_t c = this->count_;
  const int n = this->n_, r = this->rank_, root = n - 1;
  const DataType type = this->type_;
  Communicator& comm = *this->comm_;
  auto send = ViewOf<T>(c, SumInput, r);
  auto sum = Sentinels<T>(c);
  auto pattern = ViewOf<T>(c, Pattern, r);
  auto gathered = Sentinels<T>(c * n);
  auto data = r == root ? ViewOf<T>(c, Pattern, root) : Sentinels<T>(c);
  auto exchanged_in = ViewOf<T>(c * n, Pattern, r), exchanged = Sentinels<T>(c * n);
  std::vector<Request> requests;
  requests.push_back(IAllReduce(comm, send, sum, ReduceOp::kSum));
  requests.push_back(IAllGather(comm, pattern, gathered));
  requests.push_back(IBroadcast(comm, data, root));
  requests.push_back(IAllToAll(comm, exchanged_in, exchanged));
  ASSERT_TRUE(AllRanks(WaitAll(absl::MakeSpan(requests)).ok()));
  EXPECT_TRUE(ViewEquals(sum, [&](size_t i) { return ExactReduction(type, ReduceOp::kSum, n, i); }));
  EXPECT_TRUE(ViewEquals(gathered, [&](size_t i) { return PatternValue(type, static_cast<int>(i / c), i % c); }));
  EXPECT_TRUE(ViewEquals(data, [&](size_t i) { return PatternValue(type, root, i); }));
  // Block j of rank i's send lands as block i of rank j's recv: block b here came from rank b, its block r.
  EXPECT_TRUE(
      ViewEquals(exchanged, [&](size_t i) { return PatternValue(type, static_cast<int>(i / c), r * c + i % c); }));

  HostView<T> three("three", 3), four("four", 4);
  Request rejected = IGather(comm, three, r == root ? four : HostView<T>("all", 3 * n), root);
  const absl::Status g = rejected.Wait();
  ASSERT_TRUE(AllRanks(g.code() == absl::StatusCode::kInvalidArgument)) << g;
  if (r == root) {
    EXPECT_THAT(std::string(g.message()), HasSubstr("gather: root's recv view has 4 elements but send view has 3"));
  } else {
    EXPECT_THAT(std::string(g.message()), HasSubstr(absl::StrCat("rank ", root, " rejected its arguments")));
  }
  auto again = Sentinels<T>(c);
  EXPECT_TRUE(AllRanks(IAllReduce(comm, send, again, ReduceOp::kSum).Wait().ok()));
  EXPECT_TRUE(ViewEquals(again, [&](size_t i) { return ExactReduction(type, ReduceOp::kSum, n, i); }));
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
