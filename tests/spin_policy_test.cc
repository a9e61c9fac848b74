// How many polls a waiting shared-memory rank makes before it yields (shm::ChooseSpinPolls, ChooseHostSpinPolls,
// SpinPollsFor): many when the ranks have a core each, one when they share cores, and the host's ranks decide for a
// node of them; and the cores the ranks have together (CoresAvailable).
// The cores are set with each rank's affinity mask, so the expectations follow from what the test pins, not from
// the machine.
#include "collectives/transport/shm/spin_policy.h"

#include <mpi.h>
#include <sched.h>

#include <vector>

#include "gtest/gtest.h"

namespace kcoll {
namespace testing {
namespace {

constexpr int kManyPolls = 1 << 14;

int Rank(MPI_Comm comm = MPI_COMM_WORLD) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

int Size(MPI_Comm comm = MPI_COMM_WORLD) {
  int n = 1;
  MPI_Comm_size(comm, &n);
  return n;
}

// Pins this rank to the CPUs `pick` chooses from the ones it may run on, and restores its mask when it goes.
class ScopedAffinity {
 public:
  // `cpu_index`: which of the allowed CPUs (in ascending order) this rank keeps, modulo their count.
  explicit ScopedAffinity(int cpu_index) {
    CPU_ZERO(&saved_);
    sched_getaffinity(0, sizeof(saved_), &saved_);
    std::vector<int> allowed;
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &saved_)) allowed.push_back(c);
    }
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(allowed[static_cast<size_t>(cpu_index) % allowed.size()], &one);
    pinned_ = sched_setaffinity(0, sizeof(one), &one) == 0;
  }
  ~ScopedAffinity() { sched_setaffinity(0, sizeof(saved_), &saved_); }
  bool pinned() const { return pinned_; }

 private:
  cpu_set_t saved_;
  bool pinned_ = false;
};

// The fewest CPUs any rank may run on.
int FewestAllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof(set), &set);
  int cpus = CPU_COUNT(&set);
  MPI_Allreduce(MPI_IN_PLACE, &cpus, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return cpus;
}

bool AllPinned(bool pinned) {
  int all = pinned ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

TEST(ChooseSpinPolls, ARequestedCountIsKept) {
  EXPECT_EQ(shm::ChooseSpinPolls(MPI_COMM_WORLD, 7), 7);
  EXPECT_EQ(shm::ChooseHostSpinPolls(MPI_COMM_WORLD, 7), 7);
}

// The rule alone: a requested count wins; else many polls while the ranks have a core each, one once they outnumber
// the cores.
TEST(SpinPollsFor, ManyWhileEveryRankHasACoreElseOne) {
  EXPECT_EQ(shm::SpinPollsFor(2, 2, 0), kManyPolls);
  EXPECT_EQ(shm::SpinPollsFor(1, 16, 0), kManyPolls);
  EXPECT_EQ(shm::SpinPollsFor(3, 2, 0), 1);
  EXPECT_EQ(shm::SpinPollsFor(2, 1, 0), 1);
  EXPECT_EQ(shm::SpinPollsFor(3, 2, 5), 5);
  EXPECT_EQ(shm::SpinPollsFor(2, 2, 5), 5);
}

TEST(ChooseSpinPolls, RanksSharingOneCoreYieldAtOnce) {
  ScopedAffinity pin(0);  // every rank on the same CPU
  ASSERT_TRUE(AllPinned(pin.pinned()));
  const int expected = Size() == 1 ? kManyPolls : 1;
  EXPECT_EQ(shm::CoresAvailable(MPI_COMM_WORLD), 1);
  EXPECT_EQ(shm::ChooseSpinPolls(MPI_COMM_WORLD, 0), expected);
  EXPECT_EQ(shm::ChooseHostSpinPolls(MPI_COMM_WORLD, 0), expected);
}

TEST(ChooseSpinPolls, RanksWithACoreEachSpin) {
  if (FewestAllowedCpus() < Size()) GTEST_SKIP() << "fewer CPUs than ranks: no rank can have a core of its own";
  ScopedAffinity pin(Rank());  // a CPU each
  ASSERT_TRUE(AllPinned(pin.pinned()));
  EXPECT_EQ(shm::CoresAvailable(MPI_COMM_WORLD), Size());
  EXPECT_EQ(shm::ChooseSpinPolls(MPI_COMM_WORLD, 0), kManyPolls);
  EXPECT_EQ(shm::ChooseHostSpinPolls(MPI_COMM_WORLD, 0), kManyPolls);
}

// Nodes of two ranks on one host (as KCOLL_RANKS_PER_NODE emulates them): each node's two ranks see two cores, yet
// the host's four ranks share them. The transport asks over the whole communicator, which ChooseHostSpinPolls cuts
// by host, not by node, so a node's ranks yield as the host's do.
TEST(ChooseHostSpinPolls, ANodeOfTheHostYieldsWhenTheHostSharesItsCores) {
  if (Size() != 4) GTEST_SKIP() << "needs 4 ranks (nodes of two on two cores), not " << Size();
  if (FewestAllowedCpus() < 2) GTEST_SKIP() << "needs 2 CPUs";
  ScopedAffinity pin(Rank() % 2);  // the ranks of node {0, 1} and of node {2, 3} on CPUs 0 and 1
  ASSERT_TRUE(AllPinned(pin.pinned()));
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, Rank() / 2, Rank(), &node);
  EXPECT_EQ(shm::ChooseSpinPolls(node, 0), kManyPolls);       // the node alone: a core per rank
  EXPECT_EQ(shm::ChooseHostSpinPolls(MPI_COMM_WORLD, 0), 1);  // the host: four ranks on two cores
  MPI_Comm_free(&node);
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
