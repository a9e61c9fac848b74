// A distributed conjugate-gradient solver for the 3D Poisson problem, the example application of kcoll.
//
// The problem: -laplace(u) = 1 on the unit cube, u = 0 on its boundary, discretised with the 7-point stencil on an
// n x n x n grid of interior points (A u = 6 u - the six neighbours, right-hand side h^2). The grid is cut into
// blocks, one per rank, on an MPI Cartesian grid of ranks (MPI_Dims_create). Per CG iteration each rank
//   - exchanges the faces of the search direction p with its up to six neighbours (MPI point-to-point: the halo),
//   - applies the stencil, the axpy updates and its local dot products with Kokkos kernels,
//   - and sums two dot products across ranks: with kcoll's AllReduce or MPI_Allreduce (DotSum below).
// Those two 8-byte sums are the latency-bound collectives every Krylov solver waits on. Pipelined CG (CgOptions::
// pipelined) sums both of an iteration at once, with a nonblocking reduction that runs while the stencil computes.
#ifndef KCOLL_EXAMPLES_CG_SOLVER_H_
#define KCOLL_EXAMPLES_CG_SOLVER_H_

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "collectives/communicator.h"

namespace kcoll {
namespace examples {

// Sums dot products across the ranks: how the solver reduces them. Sum blocks; Start and Finish are the nonblocking
// form pipelined CG overlaps with its stencil (kcoll's IAllReduce, MPI_Iallreduce).
class DotSum {
 public:
  virtual ~DotSum() = default;
  virtual std::string name() const = 0;  // "kcoll (auto)", "MPI_Allreduce"
  virtual absl::StatusOr<double> Sum(double local) = 0;
  // Starts summing `count` doubles of `local` into `global` (both must stay untouched until Finish returned).
  virtual absl::Status Start(const double* local, double* global, int count) = 0;
  virtual absl::Status Finish() = 0;
};

// kcoll's AllReduce, with `algorithm` (kAuto: kcoll's choice).
std::unique_ptr<DotSum> MakeKcollDotSum(Communicator& comm, Algorithm algorithm);
// The vendor MPI's MPI_Allreduce.
std::unique_ptr<DotSum> MakeMpiDotSum(MPI_Comm comm);

struct CgOptions {
  int n = 64;  // interior grid points per dimension
  int max_iterations = 1000;
  double tolerance = 1e-8;  // stop when |r| / |b| falls below it
  // Pipelined CG (Ghysels and Vanroose): one reduction of two dot products per iteration, started before the
  // stencil and waited for after it, instead of classic CG's two blocking reductions around it.
  bool pipelined = false;
};

struct CgResult {
  int iterations = 0;
  double relative_residual = 0;  // |r| / |b| at the end
  double seconds = 0;            // the iterations, wall time on this rank
  double reduction_seconds = 0;  // of which summing dot products across ranks
  int dims[3] = {1, 1, 1};       // the ranks' Cartesian grid
  int coords[3] = {0, 0, 0};     // this rank's place in it
  double local_norm2 = 0;        // sum of x^2 over this rank's block of the solution
};

// The squared norm of the solution over this rank's slab of the rank grid (the ranks that share coords[0]): a second
// reduction pattern, summed with kcoll on a sub-communicator from Communicator::Split. Collective over `comm`.
absl::StatusOr<double> SlabNorm2(Communicator& comm, const CgResult& result);

// Solves on every rank of `comm` (collective). With `solution`, rank 0 receives the whole n^3 solution
// (index (i * n + j) * n + k for the point (i, j, k)); other ranks' vectors are left empty.
absl::StatusOr<CgResult> SolvePoisson(MPI_Comm comm, const CgOptions& options, DotSum& dot_sum,
                                      std::vector<double>* solution = nullptr);

// The same problem solved on one rank with plain loops (no Kokkos, no MPI): the reference for tests.
CgResult SolvePoissonSerial(const CgOptions& options, std::vector<double>* solution);

}  // namespace examples
}  // namespace kcoll

#endif  // KCOLL_EXAMPLES_CG_SOLVER_H_
