// The CG example: kcoll and MPI_Allreduce reduce the dot products to the same iterations and residuals, every
// kcoll AllReduce algorithm converges alike, and a tiny grid matches a serial solve point by point.
#include <cmath>
#include <memory>
#include <vector>

#include "collectives/algorithms/registry.h"
#include "collectives/communicator.h"
#include "examples/cg_solver.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace examples {
namespace {

using testing::AllRanks;
using ::testing::HasSubstr;
using testing::WorldRank;

// Relative agreement of the residuals of two runs whose dot products were summed in a different order.
constexpr double kResidualTolerance = 1e-6;

class CgTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto created = Communicator::Create(MPI_COMM_WORLD);
    ASSERT_TRUE(AllRanks(created.ok())) << created.status();
    comm_ = *std::move(created);
  }
  std::unique_ptr<Communicator> comm_;
};

TEST_F(CgTest, KcollAndMpiConvergeAlike) {
  CgOptions options;
  options.n = 16;
  options.tolerance = 1e-10;
  auto kcoll_sum = MakeKcollDotSum(*comm_, Algorithm::kAuto);
  auto mpi_sum = MakeMpiDotSum(MPI_COMM_WORLD);
  absl::StatusOr<CgResult> with_kcoll = SolvePoisson(MPI_COMM_WORLD, options, *kcoll_sum);
  absl::StatusOr<CgResult> with_mpi = SolvePoisson(MPI_COMM_WORLD, options, *mpi_sum);
  ASSERT_TRUE(with_kcoll.ok()) << with_kcoll.status();
  ASSERT_TRUE(with_mpi.ok()) << with_mpi.status();
  EXPECT_EQ(with_kcoll->iterations, with_mpi->iterations);
  EXPECT_LT(with_kcoll->relative_residual, options.tolerance);
  EXPECT_NEAR(with_kcoll->relative_residual, with_mpi->relative_residual,
              kResidualTolerance * with_mpi->relative_residual);
  EXPECT_GT(with_kcoll->reduction_seconds, 0);
  EXPECT_LE(with_kcoll->reduction_seconds, with_kcoll->seconds);
}

TEST_F(CgTest, EveryAllReduceAlgorithmConvergesAlike) {
  CgOptions options;
  options.n = 10;
  auto mpi_sum = MakeMpiDotSum(MPI_COMM_WORLD);
  absl::StatusOr<CgResult> reference = SolvePoisson(MPI_COMM_WORLD, options, *mpi_sum);
  ASSERT_TRUE(reference.ok()) << reference.status();
  for (Algorithm a : TransferAlgorithmsFor(Collective::kAllReduce)) {
    auto pinned = MakeKcollDotSum(*comm_, a);
    absl::StatusOr<CgResult> result = SolvePoisson(MPI_COMM_WORLD, options, *pinned);
    ASSERT_TRUE(result.ok()) << AlgorithmName(a) << ": " << result.status();
    EXPECT_EQ(result->iterations, reference->iterations) << AlgorithmName(a);
    EXPECT_NEAR(result->relative_residual, reference->relative_residual,
                kResidualTolerance * reference->relative_residual)
        << AlgorithmName(a);
  }
}

TEST_F(CgTest, TinyGridMatchesASerialSolve) {
  CgOptions options;
  options.n = 5;
  options.tolerance = 1e-12;
  auto kcoll_sum = MakeKcollDotSum(*comm_, Algorithm::kAuto);
  std::vector<double> distributed, serial;
  absl::StatusOr<CgResult> result = SolvePoisson(MPI_COMM_WORLD, options, *kcoll_sum, &distributed);
  ASSERT_TRUE(result.ok()) << result.status();
  const CgResult reference = SolvePoissonSerial(options, &serial);
  EXPECT_EQ(result->iterations, reference.iterations);
  if (WorldRank() != 0) return;
  ASSERT_EQ(distributed.size(), serial.size());
  double largest = 0;
  for (size_t i = 0; i < serial.size(); ++i) {
    EXPECT_NEAR(distributed[i], serial[i], 1e-12 * std::abs(serial[i]) + 1e-15) << "point " << i;
    largest = std::max(largest, std::abs(serial[i]));
  }
  EXPECT_GT(largest, 0);  // the solution is not trivially zero
}

TEST_F(CgTest, BadOptionsNameTheArgument) {
  auto mpi_sum = MakeMpiDotSum(MPI_COMM_WORLD);
  CgOptions options;
  options.max_iterations = 0;
  absl::StatusOr<CgResult> result = SolvePoisson(MPI_COMM_WORLD, options, *mpi_sum);
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("max_iterations: 0 is not >= 1"));
  options = CgOptions();
  options.n = 1;
  result = SolvePoisson(MPI_COMM_WORLD, options, *mpi_sum);
  if (testing::WorldSize() > 1) {
    ASSERT_FALSE(result.ok());
    EXPECT_THAT(result.status().message(), HasSubstr("n: 1 grid points per dimension cannot be cut"));
  } else {
    EXPECT_TRUE(result.ok()) << result.status();
  }
}

}  // namespace
}  // namespace examples
}  // namespace kcoll
