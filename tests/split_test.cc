// Communicator::Split and Dup: the rows and columns of a process grid as sub-communicators, every AllReduce algorithm
// and the rooted collectives on them bit for bit against MPI on the same MPI_Comm_split; their topology (the parent's
// nodes, emulated ones included); registered memory of their own; MPI_UNDEFINED; a duplicate whose calls interleave
// with the parent's; and the errors.
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <set>
#include <vector>

#include "collectives/algorithms/registry.h"
#include "collectives/communicator.h"
#include "gmock/gmock.h"
#include "tests/collective_test_util.h"
#include "tests/make_communicator.h"
#include "tests/matchers.h"

namespace kcoll {
namespace testing {
namespace {

// A grid of rows x columns over the world's ranks: two rows when the rank count is even, else one.
struct Grid {
  int rows, columns, row, column;
  Grid() {
    const int n = WorldSize(), me = WorldRank();
    rows = n % 2 == 0 ? 2 : 1;
    columns = n / rows;
    row = me / columns;
    column = me % columns;
  }
};

// MPI's own split of MPI_COMM_WORLD with the same color and key: the reference.
struct MpiSplit {
  MPI_Comm comm = MPI_COMM_NULL;
  MpiSplit(int color, int key) { MPI_Comm_split(MPI_COMM_WORLD, color, key, &comm); }
  ~MpiSplit() {
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
};

class SplitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    comm_ = MakeSerialCommunicator();
    ASSERT_TRUE(AllRanks(comm_ != nullptr));
  }
  std::unique_ptr<Communicator> comm_;
  const int rank_ = WorldRank();
  const int n_ = WorldSize();
};

TEST_F(SplitTest, RowsAndColumnsRunEveryAllReduceAlgorithmAsMpiDoes) {
  const Grid grid;
  for (bool by_row : {true, false}) {
    const int color = by_row ? grid.row : grid.column;
    const int key = by_row ? grid.columns - grid.column : grid.row;  // rows in reverse order, to exercise the key
    absl::StatusOr<std::unique_ptr<Communicator>> sub = comm_->Split(color, key);
    ASSERT_TRUE(AllRanks(sub.ok() && *sub != nullptr)) << sub.status();
    MpiSplit mpi(color, key);
    int mpi_rank = -1, mpi_size = 0;
    MPI_Comm_rank(mpi.comm, &mpi_rank);
    MPI_Comm_size(mpi.comm, &mpi_size);
    Communicator& c = **sub;
    EXPECT_EQ(c.rank(), mpi_rank);
    EXPECT_EQ(c.size(), mpi_size);
    EXPECT_EQ(c.size(), by_row ? grid.columns : grid.rows);
    // Every AllReduce algorithm, int32 sum and max of values that differ by rank, against MPI_Allreduce.
    for (Algorithm algorithm : AlgorithmsFor(Collective::kAllReduce)) {
      // A row of 3 ranks on emulated 2-rank nodes has nodes of 1 and 2 ranks: the hierarchical schedules refuse it.
      if (FactsOf(algorithm).needs == AlgorithmNeeds::kEqualNodes && c.topology().uniform_ranks_per_node() == 0) {
        continue;
      }
      CallOptions options;
      options.algorithm = algorithm;
      for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMax}) {
        const size_t count = 37;
        std::vector<int32_t> send(count), got(count, -1), want(count, -2);
        for (size_t i = 0; i < count; ++i) send[i] = static_cast<int32_t>(rank_ * 1000 + i);
        const absl::Status s = c.AllReduce(send.data(), got.data(), count, DataType::kInt32, op, options);
        if (s.code() == absl::StatusCode::kFailedPrecondition) continue;  // needs registered buffers, or one node
        ASSERT_TRUE(AllRanks(s.ok())) << AlgorithmName(algorithm) << ": " << s;
        MPI_Allreduce(send.data(), want.data(), static_cast<int>(count), MPI_INT32_T,
                      op == ReduceOp::kSum ? MPI_SUM : MPI_MAX, mpi.comm);
        EXPECT_EQ(got, want) << AlgorithmName(algorithm) << " " << ReduceOpName(op) << (by_row ? " row" : " column");
      }
    }
    // A Broadcast from the sub-communicator's last rank and a Gather to its first, against MPI's.
    const int last = c.size() - 1;
    std::vector<int32_t> data(5, rank_), want_data(5, rank_);
    ASSERT_TRUE(AllRanks(c.Broadcast(data.data(), data.data(), 5, DataType::kInt32, last).ok()));
    MPI_Bcast(want_data.data(), 5, MPI_INT32_T, last, mpi.comm);
    EXPECT_EQ(data, want_data);
    std::vector<int32_t> gathered(5 * c.size(), -1), want_gathered(5 * c.size(), -1);
    const std::vector<int32_t> mine(5, rank_);
    ASSERT_TRUE(AllRanks(c.Gather(mine.data(), gathered.data(), 5, DataType::kInt32, 0).ok()));
    MPI_Gather(mine.data(), 5, MPI_INT32_T, want_gathered.data(), 5, MPI_INT32_T, 0, mpi.comm);
    if (c.rank() == 0) {
      EXPECT_EQ(gathered, want_gathered);
    }
    EXPECT_TRUE(AllRanks(c.Finalize().ok()));
  }
}

TEST_F(SplitTest, ASubCommunicatorKeepsItsRanksNodes) {
  // Split by parity: the nodes a sub-communicator sees are the parent's nodes its ranks are on.
  absl::StatusOr<std::unique_ptr<Communicator>> sub = comm_->Split(rank_ % 2, rank_);
  ASSERT_TRUE(AllRanks(sub.ok() && *sub != nullptr)) << sub.status();
  const Topology& parent = comm_->topology();
  std::set<int> nodes;
  for (int r = rank_ % 2; r < n_; r += 2) nodes.insert(parent.node_of[r]);
  const Topology& t = (*sub)->topology();
  EXPECT_EQ(t.nnodes, static_cast<int>(nodes.size()));
  EXPECT_EQ(t.emulated, parent.emulated);
  for (int r = 0; r + 1 < t.nranks; ++r) {
    // Sub-ranks r and r+1 are world ranks 2r+p and 2r+2+p: the same node in the sub-communicator iff in the parent.
    const int world = 2 * r + rank_ % 2;
    EXPECT_EQ(t.node_of[r] == t.node_of[r + 1], parent.node_of[world] == parent.node_of[world + 2]) << "sub-rank " << r;
  }
  // Registered memory of its own: an AllReduce on it is exact (zero-copy where the sub-communicator allows it).
  Communicator& c = **sub;
  absl::StatusOr<void*> buffer = c.Allocate(64 * sizeof(int32_t));
  ASSERT_TRUE(AllRanks(buffer.ok())) << buffer.status();
  int32_t* data = static_cast<int32_t*>(*buffer);
  for (int i = 0; i < 64; ++i) data[i] = rank_ + i;
  ASSERT_TRUE(AllRanks(c.AllReduce(data, data, 64, DataType::kInt32, ReduceOp::kSum).ok()));
  int32_t want_base = 0;
  for (int r = rank_ % 2; r < n_; r += 2) want_base += r;
  for (int i = 0; i < 64; ++i) ASSERT_EQ(data[i], want_base + c.size() * i) << "element " << i;
  EXPECT_FALSE(comm_->IsRegistered(data, 64 * sizeof(int32_t)));  // the parent's registry does not know it
  EXPECT_TRUE(AllRanks(c.Free(data).ok()));
}

TEST_F(SplitTest, UndefinedColorJoinsNone) {
  const int color = rank_ == 0 ? MPI_UNDEFINED : 0;
  absl::StatusOr<std::unique_ptr<Communicator>> sub = comm_->Split(color, 0);
  ASSERT_TRUE(AllRanks(sub.ok())) << sub.status();
  if (rank_ == 0) {
    EXPECT_EQ(*sub, nullptr);
  } else {
    ASSERT_NE(*sub, nullptr);
    EXPECT_EQ((*sub)->size(), n_ - 1);
    EXPECT_EQ((*sub)->rank(), rank_ - 1);
  }
}

TEST_F(SplitTest, ADuplicateHasItsOwnCallOrder) {
  absl::StatusOr<std::unique_ptr<Communicator>> dup = comm_->Dup();
  ASSERT_TRUE(AllRanks(dup.ok())) << dup.status();
  Communicator& d = **dup;
  EXPECT_EQ(d.rank(), rank_);
  EXPECT_EQ(d.size(), n_);
  EXPECT_EQ(d.topology().node_of, comm_->topology().node_of);
  // Calls on the two interleave: each communicator's calls match among themselves.
  int32_t one = 1, ranks = 0, twice = 0;
  ASSERT_TRUE(AllRanks(d.AllReduce(&one, &ranks, 1, DataType::kInt32, ReduceOp::kSum).ok()));
  ASSERT_TRUE(AllRanks(comm_->AllReduce(&ranks, &twice, 1, DataType::kInt32, ReduceOp::kSum).ok()));
  EXPECT_EQ(ranks, n_);
  EXPECT_EQ(twice, n_ * n_);
  // Counters are per communicator.
  EXPECT_EQ(SummarizeTraffic(d.counters(), Collective::kAllReduce).calls, 1u);
  EXPECT_EQ(SummarizeTraffic(comm_->counters(), Collective::kAllReduce).calls, 1u);
}

TEST_F(SplitTest, ErrorsComeOnEveryRank) {
  // A negative color on one rank fails every rank, naming it.
  const int color = rank_ == n_ - 1 ? -3 : 0;
  absl::StatusOr<std::unique_ptr<Communicator>> sub = comm_->Split(color, 0);
  EXPECT_TRUE(AllRanks(sub.status().code() == absl::StatusCode::kInvalidArgument)) << sub.status();
  EXPECT_THAT(sub.status(), IsInvalidArgument("Split: color -3 is negative"));
  if (rank_ != n_ - 1) {
    EXPECT_THAT(sub.status(), IsInvalidArgument(absl::StrCat("Split: rank ", n_ - 1, " rejected its arguments")));
  }
  // The parent still works, and a finalized one refuses.
  ASSERT_TRUE(AllRanks(comm_->Barrier().ok()));
  ASSERT_TRUE(AllRanks(comm_->Finalize().ok()));
  EXPECT_THAT(comm_->Split(0, 0).status(), IsInvalidArgument("Split: communicator used after Finalize()"));
  EXPECT_THAT(comm_->Dup().status(), IsInvalidArgument("Dup: communicator used after Finalize()"));
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
