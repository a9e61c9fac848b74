#include "examples/cg_solver.h"

#include <Kokkos_Core.hpp>
#include <array>
#include <chrono>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace kcoll {
namespace examples {
namespace {

using Space = Kokkos::DefaultHostExecutionSpace;
using Grid = Kokkos::View<double***, Kokkos::LayoutRight, Kokkos::HostSpace>;
using Face = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>;
using Range3 = Kokkos::MDRangePolicy<Space, Kokkos::Rank<3>>;
using Range2 = Kokkos::MDRangePolicy<Space, Kokkos::Rank<2>>;
using Clock = std::chrono::steady_clock;

class KcollDotSum final : public DotSum {
 public:
  KcollDotSum(Communicator& comm, Algorithm algorithm) : comm_(comm) { options_.algorithm = algorithm; }
  std::string name() const override { return absl::StrCat("kcoll (", AlgorithmName(options_.algorithm), ")"); }
  absl::StatusOr<double> Sum(double local) override {
    double global = 0;
    absl::Status s = comm_.AllReduce(&local, &global, 1, DataType::kFloat64, ReduceOp::kSum, options_);
    if (!s.ok()) return s;
    return global;
  }
  absl::Status Start(const double* local, double* global, int count) override {
    request_ =
        comm_.IAllReduce(local, global, static_cast<size_t>(count), DataType::kFloat64, ReduceOp::kSum, options_);
    return absl::OkStatus();
  }
  absl::Status Finish() override { return request_.Wait(); }

 private:
  Communicator& comm_;
  CallOptions options_;
  Request request_;
};

class MpiDotSum final : public DotSum {
 public:
  explicit MpiDotSum(MPI_Comm comm) : comm_(comm) {}
  std::string name() const override { return "MPI_Allreduce"; }
  absl::StatusOr<double> Sum(double local) override {
    double global = 0;
    if (MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, comm_) != MPI_SUCCESS) {
      return absl::InternalError("MPI_Allreduce failed");
    }
    return global;
  }
  absl::Status Start(const double* local, double* global, int count) override {
    if (MPI_Iallreduce(local, global, count, MPI_DOUBLE, MPI_SUM, comm_, &request_) != MPI_SUCCESS) {
      return absl::InternalError("MPI_Iallreduce failed");
    }
    return absl::OkStatus();
  }
  absl::Status Finish() override {
    if (MPI_Wait(&request_, MPI_STATUS_IGNORE) != MPI_SUCCESS) return absl::InternalError("MPI_Wait failed");
    return absl::OkStatus();
  }

 private:
  MPI_Comm comm_;
  MPI_Request request_ = MPI_REQUEST_NULL;
};

// This rank's block of the grid: [start, start + size) per dimension, and its six neighbours (MPI_PROC_NULL at the
// domain's boundary, where the halo stays zero: the Dirichlet condition).
struct Block {
  std::array<int, 3> start{}, size{};
  std::array<std::array<int, 2>, 3> neighbour{};  // [dimension][0: below, 1: above]
};

void Split(int n, int parts, int index, int* start, int* size) {
  const int base = n / parts, extra = n % parts;
  *size = base + (index < extra ? 1 : 0);
  *start = index * base + (index < extra ? index : extra);
}

// Plane `at` of dimension d (halo coordinates: 1..size are interior) into / out of a face buffer.
void PackFace(const Grid& p, int d, int at, const Face& face) {
  Kokkos::parallel_for(
      "pack", Range2({0, 0}, {static_cast<int64_t>(face.extent(0)), static_cast<int64_t>(face.extent(1))}),
      KOKKOS_LAMBDA(int64_t a, int64_t b) {
        face(a, b) = d == 0 ? p(at, a + 1, b + 1) : d == 1 ? p(b + 1, at, a + 1) : p(a + 1, b + 1, at);
      });
}
void UnpackFace(const Face& face, int d, int at, const Grid& p) {
  Kokkos::parallel_for(
      "unpack", Range2({0, 0}, {static_cast<int64_t>(face.extent(0)), static_cast<int64_t>(face.extent(1))}),
      KOKKOS_LAMBDA(int64_t a, int64_t b) {
        double& cell = d == 0 ? p(at, a + 1, b + 1) : d == 1 ? p(b + 1, at, a + 1) : p(a + 1, b + 1, at);
        cell = face(a, b);
      });
  Kokkos::fence();
}

// Exchanges the faces of `p` with the neighbours. Faces are packed into contiguous buffers by Kokkos kernels.
class Halo {
 public:
  Halo(MPI_Comm cart, const Block& block) : cart_(cart), block_(block) {
    for (int d = 0; d < 3; ++d) {
      const int a = block.size[(d + 1) % 3], b = block.size[(d + 2) % 3];
      for (int side = 0; side < 2; ++side) {
        send_[d][side] = Face("send", a, b);
        recv_[d][side] = Face("recv", a, b);
      }
    }
  }

  absl::Status Exchange(const Grid& p) {
    for (int d = 0; d < 3; ++d) {
      for (int side = 0; side < 2; ++side) {
        if (block_.neighbour[d][side] != MPI_PROC_NULL) PackFace(p, d, side == 0 ? 1 : block_.size[d], send_[d][side]);
      }
    }
    Kokkos::fence();  // the faces are in their buffers before MPI reads them
    std::vector<MPI_Request> requests;
    for (int d = 0; d < 3; ++d) {
      for (int side = 0; side < 2; ++side) {
        const int peer = block_.neighbour[d][side];
        if (peer == MPI_PROC_NULL) continue;
        // Tags name the direction of travel: a rank's face sent upwards is its upper neighbour's face from below.
        requests.emplace_back();
        MPI_Irecv(recv_[d][side].data(), static_cast<int>(recv_[d][side].size()), MPI_DOUBLE, peer, d * 2 + (1 - side),
                  cart_, &requests.back());
        requests.emplace_back();
        MPI_Isend(send_[d][side].data(), static_cast<int>(send_[d][side].size()), MPI_DOUBLE, peer, d * 2 + side, cart_,
                  &requests.back());
      }
    }
    if (MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE) != MPI_SUCCESS) {
      return absl::InternalError("halo exchange: MPI_Waitall failed");
    }
    for (int d = 0; d < 3; ++d) {
      for (int side = 0; side < 2; ++side) {
        if (block_.neighbour[d][side] != MPI_PROC_NULL)
          UnpackFace(recv_[d][side], d, side == 0 ? 0 : block_.size[d] + 1, p);
      }
    }
    return absl::OkStatus();
  }

 private:
  MPI_Comm cart_;
  Block block_;
  Face send_[3][2], recv_[3][2];
};

Range3 Interior(const Block& b) { return Range3({1, 1, 1}, {b.size[0] + 1, b.size[1] + 1, b.size[2] + 1}); }

double LocalDot(const Block& b, const Grid& x, const Grid& y) {
  double sum = 0;
  Kokkos::parallel_reduce(
      "dot", Interior(b),
      KOKKOS_LAMBDA(int64_t i, int64_t j, int64_t k, double& acc) { acc += x(i, j, k) * y(i, j, k); }, sum);
  return sum;
}

void Stencil(const Block& block, const Grid& in, const Grid& out) {
  Kokkos::parallel_for(
      "stencil", Interior(block), KOKKOS_LAMBDA(int64_t i, int64_t j, int64_t k) {
        out(i, j, k) = 6 * in(i, j, k) - in(i - 1, j, k) - in(i + 1, j, k) - in(i, j - 1, k) - in(i, j + 1, k) -
                       in(i, j, k - 1) - in(i, j, k + 1);
      });
}

// Pipelined CG without a preconditioner (Ghysels and Vanroose 2014, algorithm 4 with M = I): with w = A r kept by
// recurrence, the iteration's two dot products gamma = (r, r) and delta = (w, r) depend on no product with A of the
// same iteration, so their sum across ranks runs while the stencil computes q = A w:
//
//   start sum of (r, r), (w, r); q = A w (halo exchange of w, stencil); wait
//   beta = gamma / gamma_old, alpha = gamma / (delta - beta gamma / alpha_old)   (first: beta = 0, alpha = gamma/delta)
//   z = q + beta z; s = w + beta s; p = r + beta p; x += alpha p; r -= alpha s; w -= alpha z
//
// The updates and the next iteration's local dot products run as one pass over the block (a complex sum carries
// both), so an iteration reads the block's vectors about as often as classic CG does.
//
// It stops, as classic CG does, once |r| / |b| < tolerance for the r of the iteration's start.
absl::Status PipelinedLoop(const CgOptions& options, const Block& block, Halo& halo, DotSum& dot_sum, double bb,
                           const Grid& x, const Grid& r, CgResult* result) {
  const Block b = block;
  auto grid = [&](const char* name) { return Grid(std::string(name), b.size[0] + 2, b.size[1] + 2, b.size[2] + 2); };
  Grid w = grid("w"), q = grid("q"), z = grid("z"), s = grid("s"), p = grid("p");
  if (absl::Status e = halo.Exchange(r); !e.ok()) return e;
  Stencil(block, r, w);  // w = A r
  // Both dot products in one pass, as the real and imaginary parts of one complex sum.
  using Pair = Kokkos::complex<double>;
  Pair dots;
  Kokkos::parallel_reduce(
      "dots", Interior(block),
      KOKKOS_LAMBDA(int64_t i, int64_t j, int64_t k, Pair & acc) {
        acc += Pair(r(i, j, k) * r(i, j, k), w(i, j, k) * r(i, j, k));
      },
      dots);
  double local[2], global[2];
  double gamma_old = 0, alpha_old = 0, residual = 1;
  result->reduction_seconds = 0;
  const auto start = Clock::now();
  int it = 0;
  for (;;) {
    local[0] = dots.real();
    local[1] = dots.imag();
    auto t = Clock::now();
    if (absl::Status started = dot_sum.Start(local, global, 2); !started.ok()) return started;
    result->reduction_seconds += std::chrono::duration<double>(Clock::now() - t).count();
    if (absl::Status e = halo.Exchange(w); !e.ok()) return e;
    Stencil(block, w, q);  // q = A w, while the sums travel
    Kokkos::fence();
    t = Clock::now();
    if (absl::Status finished = dot_sum.Finish(); !finished.ok()) return finished;
    result->reduction_seconds += std::chrono::duration<double>(Clock::now() - t).count();
    const double gamma = global[0], delta = global[1];
    residual = std::sqrt(gamma / bb);
    if (residual < options.tolerance || it >= options.max_iterations) break;
    ++it;
    const double beta = it > 1 ? gamma / gamma_old : 0.0;
    const double alpha = it > 1 ? gamma / (delta - beta * gamma / alpha_old) : gamma / delta;
    // The updates and the next iteration's local dot products, in one pass over the block.
    dots = Pair();
    Kokkos::parallel_reduce(
        "pipelined_update", Interior(block),
        KOKKOS_LAMBDA(int64_t i, int64_t j, int64_t k, Pair & acc) {
          const double zn = q(i, j, k) + beta * z(i, j, k);
          const double sn = w(i, j, k) + beta * s(i, j, k);
          const double pn = r(i, j, k) + beta * p(i, j, k);
          const double rn = r(i, j, k) - alpha * sn;
          const double wn = w(i, j, k) - alpha * zn;
          z(i, j, k) = zn;
          s(i, j, k) = sn;
          p(i, j, k) = pn;
          x(i, j, k) += alpha * pn;
          r(i, j, k) = rn;
          w(i, j, k) = wn;
          acc += Pair(rn * rn, wn * rn);
        },
        dots);
    gamma_old = gamma;
    alpha_old = alpha;
  }
  Kokkos::fence();
  result->seconds = std::chrono::duration<double>(Clock::now() - start).count();
  result->iterations = it;
  result->relative_residual = residual;
  return absl::OkStatus();
}

// Gathers the blocks into rank 0's n^3 vector.
void GatherSolution(MPI_Comm cart, const Block& block, int n, const Grid& x, std::vector<double>* solution) {
  int rank = 0, nranks = 1;
  MPI_Comm_rank(cart, &rank);
  MPI_Comm_size(cart, &nranks);
  std::vector<double> mine;
  mine.reserve(static_cast<size_t>(block.size[0]) * block.size[1] * block.size[2]);
  for (int i = 1; i <= block.size[0]; ++i)
    for (int j = 1; j <= block.size[1]; ++j)
      for (int k = 1; k <= block.size[2]; ++k) mine.push_back(x(i, j, k));
  std::array<int, 6> shape{block.start[0], block.start[1], block.start[2], block.size[0], block.size[1], block.size[2]};
  std::vector<int> shapes(6 * nranks), counts(nranks), offsets(nranks);
  MPI_Gather(shape.data(), 6, MPI_INT, shapes.data(), 6, MPI_INT, 0, cart);
  const int count = static_cast<int>(mine.size());
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, cart);
  std::vector<double> all;
  if (rank == 0) {
    for (int r = 1; r < nranks; ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
    all.resize(static_cast<size_t>(n) * n * n);
  }
  std::vector<double> packed(rank == 0 ? all.size() : 0);
  MPI_Gatherv(mine.data(), count, MPI_DOUBLE, packed.data(), counts.data(), offsets.data(), MPI_DOUBLE, 0, cart);
  solution->clear();
  if (rank != 0) return;
  for (int r = 0; r < nranks; ++r) {
    const int* s = &shapes[6 * r];
    size_t at = offsets[r];
    for (int i = 0; i < s[3]; ++i)
      for (int j = 0; j < s[4]; ++j)
        for (int k = 0; k < s[5]; ++k)
          all[(static_cast<size_t>(s[0] + i) * n + s[1] + j) * n + s[2] + k] = packed[at++];
  }
  *solution = std::move(all);
}

}  // namespace

std::unique_ptr<DotSum> MakeKcollDotSum(Communicator& comm, Algorithm algorithm) {
  return std::make_unique<KcollDotSum>(comm, algorithm);
}

std::unique_ptr<DotSum> MakeMpiDotSum(MPI_Comm comm) { return std::make_unique<MpiDotSum>(comm); }

absl::StatusOr<CgResult> SolvePoisson(MPI_Comm comm, const CgOptions& options, DotSum& dot_sum,
                                      std::vector<double>* solution) {
  if (options.max_iterations < 1) {
    return absl::InvalidArgumentError(absl::StrCat("max_iterations: ", options.max_iterations, " is not >= 1"));
  }
  if (!(options.tolerance > 0)) {
    return absl::InvalidArgumentError(absl::StrCat("tolerance: ", options.tolerance, " is not > 0"));
  }
  int nranks = 1;
  MPI_Comm_size(comm, &nranks);
  CgResult result;
  for (int& d : result.dims) d = 0;  // MPI_Dims_create fills the zeros
  MPI_Dims_create(nranks, 3, result.dims);
  for (int d = 0; d < 3; ++d) {
    if (options.n < result.dims[d]) {
      return absl::InvalidArgumentError(absl::StrCat("n: ", options.n, " grid points per dimension cannot be cut into ",
                                                     result.dims[0], "x", result.dims[1], "x", result.dims[2],
                                                     " blocks (n must be >= ", result.dims[d], ")"));
    }
  }
  const int periodic[3] = {0, 0, 0};
  MPI_Comm cart = MPI_COMM_NULL;
  MPI_Cart_create(comm, 3, result.dims, periodic, /*reorder=*/0, &cart);
  int rank = 0, coords[3];
  MPI_Comm_rank(cart, &rank);
  MPI_Cart_coords(cart, rank, 3, coords);
  Block block;
  for (int d = 0; d < 3; ++d) result.coords[d] = coords[d];
  for (int d = 0; d < 3; ++d) {
    Split(options.n, result.dims[d], coords[d], &block.start[d], &block.size[d]);
    MPI_Cart_shift(cart, d, 1, &block.neighbour[d][0], &block.neighbour[d][1]);
  }

  const int nx = block.size[0], ny = block.size[1], nz = block.size[2];
  Grid x("x", nx + 2, ny + 2, nz + 2), r("r", nx + 2, ny + 2, nz + 2), p("p", nx + 2, ny + 2, nz + 2),
      ap("ap", nx + 2, ny + 2, nz + 2);
  const double h = 1.0 / (options.n + 1);
  const double rhs = h * h;
  Kokkos::parallel_for(
      "init", Interior(block), KOKKOS_LAMBDA(int64_t i, int64_t j, int64_t k) {
        r(i, j, k) = rhs;  // x = 0: r = b
        p(i, j, k) = rhs;
      });
  Halo halo(cart, block);
  auto reduce = [&](double local) -> absl::StatusOr<double> {
    const auto start = Clock::now();
    absl::StatusOr<double> global = dot_sum.Sum(local);
    result.reduction_seconds += std::chrono::duration<double>(Clock::now() - start).count();
    return global;
  };

  absl::StatusOr<double> rr = reduce(LocalDot(block, r, r));
  if (!rr.ok()) return rr.status();
  const double bb = *rr;
  if (options.pipelined) {
    absl::Status solved = PipelinedLoop(options, block, halo, dot_sum, bb, x, r, &result);
    if (!solved.ok()) return solved;
    result.local_norm2 = LocalDot(block, x, x);
    if (solution != nullptr) GatherSolution(cart, block, options.n, x, solution);
    MPI_Comm_free(&cart);
    return result;
  }
  double rr_now = *rr;
  result.reduction_seconds = 0;  // the iterations' share only
  const auto start = Clock::now();
  int it = 0;
  while (it < options.max_iterations && std::sqrt(rr_now / bb) >= options.tolerance) {
    ++it;
    if (absl::Status s = halo.Exchange(p); !s.ok()) return s;
    Kokkos::parallel_for(
        "stencil", Interior(block), KOKKOS_LAMBDA(int64_t i, int64_t j, int64_t k) {
          ap(i, j, k) = 6 * p(i, j, k) - p(i - 1, j, k) - p(i + 1, j, k) - p(i, j - 1, k) - p(i, j + 1, k) -
                        p(i, j, k - 1) - p(i, j, k + 1);
        });
    absl::StatusOr<double> pap = reduce(LocalDot(block, p, ap));
    if (!pap.ok()) return pap.status();
    const double alpha = rr_now / *pap;
    Kokkos::parallel_for(
        "axpy", Interior(block), KOKKOS_LAMBDA(int64_t i, int64_t j, int64_t k) {
          x(i, j, k) += alpha * p(i, j, k);
          r(i, j, k) -= alpha * ap(i, j, k);
        });
    absl::StatusOr<double> rr_next = reduce(LocalDot(block, r, r));
    if (!rr_next.ok()) return rr_next.status();
    const double beta = *rr_next / rr_now;
    rr_now = *rr_next;
    Kokkos::parallel_for(
        "direction", Interior(block),
        KOKKOS_LAMBDA(int64_t i, int64_t j, int64_t k) { p(i, j, k) = r(i, j, k) + beta * p(i, j, k); });
  }
  Kokkos::fence();
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  result.iterations = it;
  result.relative_residual = std::sqrt(rr_now / bb);
  result.local_norm2 = LocalDot(block, x, x);
  if (solution != nullptr) GatherSolution(cart, block, options.n, x, solution);
  MPI_Comm_free(&cart);
  return result;
}

absl::StatusOr<double> SlabNorm2(Communicator& comm, const CgResult& result) {
  absl::StatusOr<std::unique_ptr<Communicator>> slab = comm.Split(result.coords[0], comm.rank());
  if (!slab.ok()) return slab.status();
  double sum = 0;
  absl::Status s = (*slab)->AllReduce(&result.local_norm2, &sum, 1, DataType::kFloat64, ReduceOp::kSum);
  if (!s.ok()) return s;
  return sum;
}

CgResult SolvePoissonSerial(const CgOptions& options, std::vector<double>* solution) {
  const int n = options.n;
  const size_t total = static_cast<size_t>(n) * n * n;
  auto at = [n](int i, int j, int k) { return (static_cast<size_t>(i) * n + j) * n + k; };
  const double h = 1.0 / (n + 1);
  std::vector<double> x(total, 0.0), r(total, h * h), p(r), ap(total);
  auto dot = [&](const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0;
    for (size_t i = 0; i < total; ++i) s += a[i] * b[i];
    return s;
  };
  auto value = [&](const std::vector<double>& v, int i, int j, int k) {
    return (i < 0 || j < 0 || k < 0 || i >= n || j >= n || k >= n) ? 0.0 : v[at(i, j, k)];
  };
  const double bb = dot(r, r);
  double rr = bb;
  CgResult result;
  int it = 0;
  while (it < options.max_iterations && std::sqrt(rr / bb) >= options.tolerance) {
    ++it;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        for (int k = 0; k < n; ++k)
          ap[at(i, j, k)] = 6 * p[at(i, j, k)] - value(p, i - 1, j, k) - value(p, i + 1, j, k) - value(p, i, j - 1, k) -
                            value(p, i, j + 1, k) - value(p, i, j, k - 1) - value(p, i, j, k + 1);
    const double alpha = rr / dot(p, ap);
    for (size_t i = 0; i < total; ++i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * ap[i];
    }
    const double rr_next = dot(r, r);
    const double beta = rr_next / rr;
    rr = rr_next;
    for (size_t i = 0; i < total; ++i) p[i] = r[i] + beta * p[i];
  }
  result.iterations = it;
  result.relative_residual = std::sqrt(rr / bb);
  *solution = std::move(x);
  return result;
}

}  // namespace examples
}  // namespace kcoll
