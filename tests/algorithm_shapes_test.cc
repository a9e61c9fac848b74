// The arithmetic behind the AllReduce schedules, checked for every group size up to 100: the power-of-two fold
// covers every rank exactly once and pairs ranks symmetrically, and the ring's owned blocks cover the ring. (The
// trees the tree algorithms run on are the topology's, checked in graph_test.)
#include <set>

#include "collectives/algorithms/engines/fold_transfers.h"
#include "collectives/algorithms/engines/power_of_two_fold.h"
#include "collectives/algorithms/engines/sliced_ring.h"
#include "gtest/gtest.h"

namespace kcoll {
namespace {

TEST(VirtualPowerOfTwoTest, EveryRankTakesPartOrSitsOutOnce) {
  for (int n = 1; n <= 100; ++n) {
    const VirtualPowerOfTwo fold(n);
    EXPECT_EQ(fold.p2 & (fold.p2 - 1), 0) << "n=" << n;
    EXPECT_LE(fold.p2, n);
    EXPECT_GT(2 * fold.p2, n);
    std::set<int> virtuals;
    for (int q = 0; q < n; ++q) {
      const int partner = FoldPartner(fold, q);
      if (fold.SitsOut(q)) {
        ASSERT_GE(partner, 0) << "n=" << n << " q=" << q;
        EXPECT_EQ(FoldPartner(fold, partner), q);
        EXPECT_FALSE(fold.SitsOut(partner));
        EXPECT_EQ(fold.VirtualOf(q), -1);
      } else {
        EXPECT_TRUE(virtuals.insert(fold.VirtualOf(q)).second) << "n=" << n << " q=" << q;
        EXPECT_EQ(fold.PositionOf(fold.VirtualOf(q)), q) << "n=" << n;
        if (partner >= 0) {
          EXPECT_TRUE(fold.SitsOut(partner)) << "n=" << n << " q=" << q;
        }
      }
    }
    ASSERT_EQ(static_cast<int>(virtuals.size()), fold.p2) << "n=" << n;
    EXPECT_EQ(*virtuals.begin(), 0);
    EXPECT_EQ(*virtuals.rbegin(), fold.p2 - 1);
  }
}

TEST(RingPipelineTest, OwnedBlocksCoverTheRing) {
  for (int n = 1; n <= 20; ++n) {
    std::set<int> owned;
    for (int i = 0; i < n; ++i) owned.insert(SlicedRing::OwnedBlock(i, n));
    EXPECT_EQ(static_cast<int>(owned.size()), n);
  }
}

}  // namespace
}  // namespace kcoll
