// //bench:overlap: how much of a nonblocking AllReduce the application's computation hides, kcoll's IAllReduce
// against MPI_Iallreduce in the same run. For each size and round, every rank times (medians over -n iterations,
// the largest across ranks, each iteration started together after an MPI_Barrier):
//
//   blocking   the blocking call (AllReduce / MPI_Allreduce)
//   compute    a computation alone, sized to --compute_factor times the slower blocking call
//   total      issue, the same computation, wait
//   wait       the time spent in Wait alone
//
// and prints wait and exposed (total - compute) as a share of the blocking call: 0% when the call ran entirely
// behind the computation, 100% when it hid nothing. `wait` is what the application sees stalled; `exposed` also
// counts the core time the call took from the computation, which on a machine whose cores all compute (two ranks
// on two cores) is most of a bandwidth-bound call. Every call's result is checked exactly once per size and round.
//
//   bazel run -c opt //bench:overlap -- --ranks 2 -b 8 -e 1M -f 128 -n 200 --rounds 3
//
// Ranks are not bound to cores (a progress thread must be free to run beside the computation); --progress picks
// kcoll's progress (thread or eager, CommunicatorOptions::progress), MPI runs with MPI_THREAD_MULTIPLE.
#include <mpi.h>
#include <sched.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/byte_size.h"
#include "bench/options/rank_program.h"
#include "collectives/communicator.h"
#include "collectives/kernels/backend.h"

namespace kcoll {
namespace bench {
namespace {

struct OverlapOptions : SweepOptions {
  OverlapOptions() {
    factor = 128;
    communicator.backend = ExecBackend::kSerial;
    communicator.progress = Progress::kThread;
  }
  double compute_factor = 1.5;
};

absl::StatusOr<OverlapOptions> Parse(const std::vector<std::string>& args) {
  using O = OverlapOptions;
  FlagTable<O> flags = SweepFlags<O>(/*min_ranks=*/1);
  flags.push_back({"--compute_factor", NumberIn(&O::compute_factor, 1e-9)});
  flags.push_back({"--progress", [](const std::string& value, O& o) {
                     absl::StatusOr<Progress> parsed = ParseProgress(value);
                     if (parsed.ok()) o.communicator.progress = *parsed;
                     return parsed.ok();
                   }});
  absl::StatusOr<O> o = ParseFlags(args, flags);
  if (o.ok() && o->min_bytes > o->max_bytes) return absl::InvalidArgumentError("-b is larger than -e");
  return o;
}

// The application's computation: a dependent chain of multiply-adds on a few cache lines, `units` rounds.
double Compute(long units, double seed) {
  double x[8];
  for (int k = 0; k < 8; ++k) x[k] = seed + k;
  for (long u = 0; u < units; ++u) {
    for (int k = 0; k < 8; ++k) x[k] = x[k] * 0.999999 + 1e-7;
  }
  double s = 0;
  for (double v : x) s += v;
  return s;
}

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// The median of this rank's samples, the largest across ranks.
double MedianMax(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  double median = samples[samples.size() / 2];
  MPI_Allreduce(MPI_IN_PLACE, &median, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return median;
}

struct Row {
  size_t bytes;
  double kcoll_blocking, mpi_blocking, compute;
  double kcoll_total, kcoll_wait, mpi_total, mpi_wait;
  bool exact = true;
};

volatile double sink = 0;

class Runner {
 public:
  Runner(Communicator& comm, const OverlapOptions& options) : comm_(comm), o_(options) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks_);
    // Compute units per second, measured once.
    const auto start = Clock::now();
    sink = sink + Compute(2000000, 1.0);
    units_per_second_ = 2000000 / Seconds(start, Clock::now());
    MPI_Allreduce(MPI_IN_PLACE, &units_per_second_, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  }

  Row Measure(size_t bytes) {
    const size_t count = std::max<size_t>(1, bytes / sizeof(float));
    send_.assign(count, 0.0f);
    recv_.assign(count, -1.0f);
    for (size_t i = 0; i < count; ++i) send_[i] = static_cast<float>((rank_ + i) % 7);  // sums exact in float
    Row row{count * sizeof(float)};
    row.kcoll_blocking = Time(
        [&] { comm_.AllReduce(send_.data(), recv_.data(), count, DataType::kFloat32, ReduceOp::kSum).IgnoreError(); });
    row.exact &= Exact();
    row.mpi_blocking = Time([&] {
      MPI_Allreduce(send_.data(), recv_.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    });
    row.exact &= Exact();
    long units =
        static_cast<long>(o_.compute_factor * std::max(row.kcoll_blocking, row.mpi_blocking) * units_per_second_) + 1;
    row.compute = Time([&] { sink = sink + Compute(units, 1.0); });
    // The calibration misjudges short computations: scale to the target once more, from the measured time.
    const double target = o_.compute_factor * std::max(row.kcoll_blocking, row.mpi_blocking);
    units = static_cast<long>(static_cast<double>(units) * target / row.compute) + 1;
    row.compute = Time([&] { sink = sink + Compute(units, 1.0); });
    std::vector<double> waits;
    row.kcoll_total = Time([&] {
      Request r = comm_.IAllReduce(send_.data(), recv_.data(), count, DataType::kFloat32, ReduceOp::kSum);
      sink = sink + Compute(units, 1.0);
      const auto w = Clock::now();
      r.Wait().IgnoreError();
      waits.push_back(Seconds(w, Clock::now()));
    });
    row.kcoll_wait = MedianMax(LastIterations(waits));
    row.exact &= Exact();
    waits.clear();
    row.mpi_total = Time([&] {
      MPI_Request r;
      MPI_Iallreduce(send_.data(), recv_.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &r);
      sink = sink + Compute(units, 1.0);
      const auto w = Clock::now();
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      waits.push_back(Seconds(w, Clock::now()));
    });
    row.mpi_wait = MedianMax(LastIterations(waits));
    row.exact &= Exact();
    int exact = row.exact ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &exact, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    row.exact = exact == 1;
    return row;
  }

 private:
  template <class Fn>
  double Time(Fn fn) {
    for (int i = 0; i < o_.warmup; ++i) fn();
    std::vector<double> samples;
    for (int i = 0; i < o_.iters; ++i) {
      MPI_Barrier(MPI_COMM_WORLD);
      const auto start = Clock::now();
      fn();
      samples.push_back(Seconds(start, Clock::now()));
    }
    return MedianMax(samples);
  }

  // The samples of the timed iterations (the warm-up ones came first).
  std::vector<double> LastIterations(const std::vector<double>& all) const {
    return std::vector<double>(all.end() - std::min<size_t>(all.size(), o_.iters), all.end());
  }

  // The last call's result, element by element: the sum over ranks of (rank + i) % 7.
  bool Exact() {
    for (size_t i = 0; i < recv_.size(); ++i) {
      float want = 0;
      for (int r = 0; r < nranks_; ++r) want += static_cast<float>((r + i) % 7);
      if (recv_[i] != want) return false;
    }
    std::fill(recv_.begin(), recv_.end(), -1.0f);
    return true;
  }

  Communicator& comm_;
  const OverlapOptions& o_;
  int rank_ = 0, nranks_ = 1;
  double units_per_second_ = 1;
  std::vector<float> send_, recv_;
};

std::string Us(double seconds) { return absl::StrFormat("%9.2f", seconds * 1e6); }
std::string Pct(double part, double whole) { return absl::StrFormat("%6.0f%%", 100.0 * part / whole); }

int RunRanks(const OverlapOptions& o, Communicator& comm) {
  const int rank = comm.rank();
  const std::vector<size_t> sizes = SweepSizes(o);
  if (rank == 0) {
    std::printf("# overlap of a nonblocking AllReduce (float32 sum) on %d ranks; kcoll: %s, %s\n", comm.size(),
                comm.execution().c_str(), comm.progress().c_str());
    std::printf(
        "# compute = %.2f x the slower blocking call; medians of %d iterations, the largest across ranks; "
        "%d rounds, sizes interleaved\n",
        o.compute_factor, o.iters, o.rounds);
    std::printf(
        "# wait: time in Wait; exposed: (issue + compute + wait) - compute alone; both as %% of the blocking call\n");
    std::printf("%5s %10s %9s %9s %9s | %9s %9s %7s %7s | %9s %9s %7s %7s %6s\n", "round", "bytes", "kcoll_us",
                "mpi_us", "comp_us", "k_total", "k_wait", "k_wait%", "k_exp%", "m_total", "m_wait", "m_wait%", "m_exp%",
                "exact");
  }
  Runner runner(comm, o);
  bool all_exact = true;
  for (int round = 0; round < o.rounds; ++round) {
    for (size_t bytes : sizes) {
      const Row r = runner.Measure(bytes);
      all_exact &= r.exact;
      if (rank == 0) {
        std::printf("%5d %10zu %s %s %s | %s %s %s %s | %s %s %s %s %6s\n", round, r.bytes,
                    Us(r.kcoll_blocking).c_str(), Us(r.mpi_blocking).c_str(), Us(r.compute).c_str(),
                    Us(r.kcoll_total).c_str(), Us(r.kcoll_wait).c_str(), Pct(r.kcoll_wait, r.kcoll_blocking).c_str(),
                    Pct(r.kcoll_total - r.compute, r.kcoll_blocking).c_str(), Us(r.mpi_total).c_str(),
                    Us(r.mpi_wait).c_str(), Pct(r.mpi_wait, r.mpi_blocking).c_str(),
                    Pct(r.mpi_total - r.compute, r.mpi_blocking).c_str(), r.exact ? "yes" : "NO");
        std::fflush(stdout);
      }
    }
  }
  return all_exact ? 0 : 1;
}

}  // namespace
}  // namespace bench
}  // namespace kcoll

int main(int argc, char** argv) {
  kcoll::bench::RankLaunch launch;
  launch.exec = "openmp";  // not bound to cores: the progress thread moves beside the computation
  launch.forced_env = {{"OMP_NUM_THREADS", "1"}};
  launch.thread_multiple = true;
  return kcoll::bench::RankProgramMain(argc, argv, "overlap", &kcoll::bench::Parse, &kcoll::bench::RunRanks, launch);
}
