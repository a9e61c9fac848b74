#include "calibration/vendor_sizes.h"

#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/machine.h"

namespace kcoll {
namespace calibration {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using Ranges = std::vector<std::pair<int64_t, int64_t>>;

// A size at which MPI took `out` and `in` of kcoll's time (kcoll: 10 us in both forms).
VendorPoint At(int64_t bytes, double out, double in) { return {bytes, 10e-6, 10e-6, out * 10e-6, in * 10e-6}; }

TEST(VendorSizesTest, MpiMustWinByTheMarginInBothForms) {
  EXPECT_TRUE(MpiWins(At(8, 0.5, 0.5)));
  EXPECT_TRUE(MpiWins(At(8, kVendorMargin, kVendorMargin)));
  EXPECT_FALSE(MpiWins(At(8, 0.96, 0.5)));  // within the margin out of place
  EXPECT_FALSE(MpiWins(At(8, 0.5, 1.2)));   // slower in place
  EXPECT_FALSE(MpiWins(At(8, 1.0, 1.0)));
}

TEST(VendorSizesTest, TimesThatAreNotPositiveAndFiniteWinNothing) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (double bad : {0.0, -1e-6, nan, inf}) {
    VendorPoint p = At(64, 0.5, 0.5);
    p.kcoll_in = bad;
    EXPECT_FALSE(MpiWins(p)) << bad;
    p = At(64, 0.5, 0.5);
    p.mpi_out = bad;
    EXPECT_FALSE(MpiWins(p)) << bad;
  }
}

TEST(VendorSizesTest, ConsecutiveWinsFormOneRange) {
  EXPECT_THAT(ChooseVendorSizes({}), ElementsAre());
  EXPECT_THAT(ChooseVendorSizes({At(8, 1.2, 1.1), At(64, 1.0, 1.3)}), ElementsAre());
  // Wins at 512 B-4 KiB and at 64 MiB alone; 32 KiB-16 MiB kcoll's.
  const std::vector<VendorPoint> points = {At(8, 1.2, 1.2),
                                           At(64, 0.97, 0.9),
                                           At(512, 0.8, 0.7),
                                           At(4096, 0.9, 0.9),
                                           At(32768, 1.5, 1.5),
                                           At(1 << 24, 2.0, 2.0),
                                           At(int64_t{1} << 26, 0.6, 0.9)};
  const Ranges chosen = ChooseVendorSizes(points);
  EXPECT_THAT(chosen, ElementsAre(Pair(512, 4096), Pair(int64_t{1} << 26, int64_t{1} << 26)));
  EXPECT_EQ(models::FormatVendorSizes(chosen), "512-4K, 64M");
  EXPECT_EQ(models::FormatVendorSizes({}), "none");
  const std::string table = FormatVendorSweep(points, chosen);
  EXPECT_THAT(table, HasSubstr("kcoll's auto against MPI_Allreduce"));
  EXPECT_THAT(table, HasSubstr("handed to MPI's own AllReduce (MPI <= 0.95x kcoll's time in place and out of place): "
                               "512-4K, 64M"));
  EXPECT_THAT(table, HasSubstr("0.80"));  // 512 B's ratio out of place, marked as MPI's
  EXPECT_THAT(table, HasSubstr("0.70  MPI"));
}

TEST(VendorSizesTest, SizesBetweenNeighboursWhoseWinnerDiffers) {
  // MPI wins at 128 KiB-512 KiB of a sweep by 4: the sizes between 32 KiB and 128 KiB and between 512 KiB and 2 MiB.
  const std::vector<VendorPoint> points = {At(8192, 1.5, 1.5), At(32768, 1.2, 1.1), At(131072, 0.6, 0.7),
                                           At(524288, 0.7, 0.7), At(2097152, 1.3, 1.2)};
  EXPECT_THAT(SizesBetweenWinners(points, 2), ElementsAre(65536, 1048576));
  // Neighbours at most finest_factor apart are not split again.
  EXPECT_THAT(SizesBetweenWinners(points, 4), ElementsAre());
  EXPECT_THAT(SizesBetweenWinners({At(65536, 1.2, 1.2), At(131072, 0.6, 0.6)}, 2), ElementsAre());
  // No change of winner, no sizes; fewer than two points, none.
  EXPECT_THAT(SizesBetweenWinners({At(8, 0.5, 0.5), At(4096, 0.5, 0.5)}, 2), ElementsAre());
  EXPECT_THAT(SizesBetweenWinners({At(8, 0.5, 0.5)}, 2), ElementsAre());
  // The size between is a whole number of floats strictly between its neighbours (sqrt(12 * 100) = 34.6 -> 32), and
  // neighbours with no whole float between them give none.
  EXPECT_THAT(SizesBetweenWinners({At(12, 0.5, 0.5), At(100, 1.5, 1.5)}, 2), ElementsAre(32));
  EXPECT_THAT(SizesBetweenWinners({At(4, 0.5, 0.5), At(20, 1.5, 1.5)}, 2), ElementsAre(8));
  EXPECT_THAT(SizesBetweenWinners({At(4, 0.5, 0.5), At(12, 1.5, 1.5)}, 2), ElementsAre());  // sqrt(48) = 6.9 -> 4
}

}  // namespace
}  // namespace calibration
}  // namespace kcoll
