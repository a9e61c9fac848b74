// A distributed conjugate-gradient solver for the 3D Poisson problem, the example application of kcoll.
//
// The problem: -laplace(u) = 1 on the unit cube, u = 0 on its boundary, discretised with the 7-point stencil on an
// n x n x n grid of interior points (A u = 6 u - the six neighbours, right-hand side h^2). The grid is cut into
// blocks, one per rank, on an MPI Cartesian grid of ranks (MPI_Dims_create). Per CG iteration each rank
//   - exchanges the faces of the search direction p with its up to six neighbours (MPI point-to-point: the halo),
//   - applies the stencil, the axpy updates and its local dot products with Kokkos kernels,
//   - and sums two dot products across ranks: with kcoll's AllReduce or MPI_Allreduce (DotSum below).
// Those two 8-byte sums are the latency-bound collectives every Krylov solver waits on.
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

// Sums one double across the ranks: how the solver reduces its dot products.
class DotSum {
 public:
  virtual ~DotSum() = default;
  virtual std::string name() const = 0;  // "kcoll (auto)", "MPI_Allreduce"
  virtual absl::StatusOr<double> Sum(double local) = 0;
};

// kcoll's AllReduce, with `algorithm` (kAuto: kcoll's choice).
std::unique_ptr<DotSum> MakeKcollDotSum(Communicator& comm, Algorithm algorithm);
// The vendor MPI's MPI_Allreduce.
std::unique_ptr<DotSum> MakeMpiDotSum(MPI_Comm comm);

struct CgOptions {
  int n = 64;  // interior grid points per dimension
  int max_iterations = 1000;
  double tolerance = 1e-8;  // stop when |r| / |b| falls below it
};

struct CgResult {
  int iterations = 0;
  double relative_residual = 0;  // |r| / |b| at the end
  double seconds = 0;            // the iterations, wall time on this rank
  double reduction_seconds = 0;  // of which summing dot products across ranks
  int dims[3] = {1, 1, 1};       // the ranks' Cartesian grid
};

// Solves on every rank of `comm` (collective). With `solution`, rank 0 receives the whole n^3 solution
// (index (i * n + j) * n + k for the point (i, j, k)); other ranks' vectors are left empty.
absl::StatusOr<CgResult> SolvePoisson(MPI_Comm comm, const CgOptions& options, DotSum& dot_sum,
                                      std::vector<double>* solution = nullptr);

// The same problem solved on one rank with plain loops (no Kokkos, no MPI): the reference for tests.
CgResult SolvePoissonSerial(const CgOptions& options, std::vector<double>* solution);

}  // namespace examples
}  // namespace kcoll

#endif  // KCOLL_EXAMPLES_CG_SOLVER_H_
