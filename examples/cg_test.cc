// The CG example: kcoll and MPI_Allreduce reduce the dot products to the same iterations and residuals, every
// kcoll AllReduce algorithm converges alike, a tiny grid matches a serial solve point by point, pipelined CG (one
// nonblocking reduction per iteration) converges as classic CG, and the per-slab norms from Split match MPI's.
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
// Pipelined CG updates its residual by recurrences classic CG does not have (w = A r, s, z), whose rounding grows over
// the iterations: residuals of the two agree to a few parts per million at 1e-10 (measured: 3.9e-6 relative).
constexpr double kPipelinedTolerance = 1e-4;

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

// A 5^3 grid solved on every rank matches the serial solve point by point, to `tolerance` relative.
void ExpectTinyGridMatchesSerial(Communicator& comm, bool pipelined, double tolerance) {
  CgOptions options;
  options.n = 5;
  options.tolerance = 1e-12;
  options.pipelined = pipelined;
  auto kcoll_sum = MakeKcollDotSum(comm, Algorithm::kAuto);
  std::vector<double> distributed, serial;
  absl::StatusOr<CgResult> result = SolvePoisson(MPI_COMM_WORLD, options, *kcoll_sum, &distributed);
  ASSERT_TRUE(result.ok()) << result.status();
  const CgResult reference = SolvePoissonSerial(options, &serial);
  EXPECT_EQ(result->iterations, reference.iterations);
  if (WorldRank() != 0) return;
  ASSERT_EQ(distributed.size(), serial.size());
  double largest = 0;
  for (size_t i = 0; i < serial.size(); ++i) {
    EXPECT_NEAR(distributed[i], serial[i], tolerance * std::abs(serial[i]) + 1e-15) << "point " << i;
    largest = std::max(largest, std::abs(serial[i]));
  }
  EXPECT_GT(largest, 0);  // the solution is not trivially zero
}

TEST_F(CgTest, TinyGridMatchesASerialSolve) { ExpectTinyGridMatchesSerial(*comm_, /*pipelined=*/false, 1e-12); }

// Pipelined CG, its two dot products summed by one nonblocking call (kcoll's IAllReduce, MPI_Iallreduce), takes
// the iterations of classic CG to residuals equal within rounding, and a tiny grid matches the serial solve.
TEST_F(CgTest, PipelinedConvergesAsClassic) {
  CgOptions options;
  options.n = 16;
  options.tolerance = 1e-10;
  auto mpi_sum = MakeMpiDotSum(MPI_COMM_WORLD);
  absl::StatusOr<CgResult> classic = SolvePoisson(MPI_COMM_WORLD, options, *mpi_sum);
  ASSERT_TRUE(classic.ok()) << classic.status();
  options.pipelined = true;
  for (bool kcoll : {true, false}) {
    auto sum = kcoll ? MakeKcollDotSum(*comm_, Algorithm::kAuto) : MakeMpiDotSum(MPI_COMM_WORLD);
    absl::StatusOr<CgResult> pipelined = SolvePoisson(MPI_COMM_WORLD, options, *sum);
    ASSERT_TRUE(pipelined.ok()) << sum->name() << ": " << pipelined.status();
    EXPECT_EQ(pipelined->iterations, classic->iterations) << sum->name();
    EXPECT_NEAR(pipelined->relative_residual, classic->relative_residual,
                kPipelinedTolerance * classic->relative_residual)
        << sum->name();
    EXPECT_GT(pipelined->reduction_seconds, 0);
  }
  ExpectTinyGridMatchesSerial(*comm_, /*pipelined=*/true, 1e-10);
}

// The solution's norm per slab of the rank grid, summed on sub-communicators from Split, equals the sum over the
// same ranks of MPI's own MPI_Comm_split, and the slabs add up to the whole norm.
TEST_F(CgTest, SlabNormsFromSplitMatchMpi) {
  CgOptions options;
  options.n = 12;
  auto kcoll_sum = MakeKcollDotSum(*comm_, Algorithm::kAuto);
  absl::StatusOr<CgResult> result = SolvePoisson(MPI_COMM_WORLD, options, *kcoll_sum);
  ASSERT_TRUE(result.ok()) << result.status();
  absl::StatusOr<double> slab = SlabNorm2(*comm_, *result);
  ASSERT_TRUE(AllRanks(slab.ok())) << slab.status();
  MPI_Comm mpi_slab = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, result->coords[0], WorldRank(), &mpi_slab);
  double want = 0;
  MPI_Allreduce(&result->local_norm2, &want, 1, MPI_DOUBLE, MPI_SUM, mpi_slab);
  int slab_rank = 0;
  MPI_Comm_rank(mpi_slab, &slab_rank);
  MPI_Comm_free(&mpi_slab);
  EXPECT_NEAR(*slab, want, 1e-13 * want);
  // Each slab's first rank contributes its slab's norm once: together, the whole solution's.
  double firsts = slab_rank == 0 ? *slab : 0.0, total = 0, whole = 0;
  MPI_Allreduce(&firsts, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&result->local_norm2, &whole, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_NEAR(total, whole, 1e-12 * whole);
  EXPECT_GT(whole, 0);
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
