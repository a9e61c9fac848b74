// //bench:group: what a group saves. K small AllReduces (float32 sums of -b bytes each, the dot products of a Krylov
// iteration) issued three ways, each set timed as one (medians over -n sets, the largest across ranks, every set
// started together after an MPI_Barrier):
//
//   kcoll      K blocking Communicator::AllReduce calls, one after the other
//   group      the same K calls between GroupStart() and GroupEnd(), which fuses them into one AllReduce
//   mpi        K MPI_Allreduce calls
//
// Every set's results are checked exactly; the exit status is 1 on a wrong result.
//
//   bazel run -c opt //bench:group -- --ranks 2 --calls 8 -b 8 -n 2000 --rounds 3
#include <mpi.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/byte_size.h"
#include "bench/options/rank_program.h"
#include "collectives/communicator.h"
#include "collectives/kernels/backend.h"

namespace kcoll {
namespace bench {
namespace {

using Clock = std::chrono::steady_clock;

struct GroupOptions {
  GroupOptions() { communicator.backend = ExecBackend::kSerial; }
  int ranks = 2, calls = 8, iters = 2000, rounds = 3;
  size_t bytes = 8;
  CommunicatorOptions communicator;
};

absl::StatusOr<GroupOptions> Parse(const std::vector<std::string>& args) {
  using O = GroupOptions;
  return ParseFlags<O>(args, {{"--ranks", NumberIn(&O::ranks, 1)},
                              {"--calls", NumberIn(&O::calls, 1, 1024)},
                              {"-b", BytesIn(&O::bytes, 4, size_t{1} << 20)},
                              {"-n", NumberIn(&O::iters, 1)},
                              {"--rounds", NumberIn(&O::rounds, 1)}});
}

class Runner {
 public:
  Runner(Communicator& comm, const GroupOptions& o) : comm_(comm), o_(o), count_(o.bytes / sizeof(float)) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks_);
    send_.resize(o.calls, std::vector<float>(count_));
    recv_.resize(o.calls, std::vector<float>(count_));
    for (int k = 0; k < o.calls; ++k) {
      for (size_t i = 0; i < count_; ++i) send_[k][i] = static_cast<float>((rank_ + k + i) % 7);  // exact sums
    }
  }

  // One set of K calls in the way `how` names; false when a call failed.
  bool Set(const std::string& how) {
    bool ok = true;
    if (how == "group") comm_.GroupStart();
    for (int k = 0; k < o_.calls; ++k) {
      if (how == "mpi") {
        ok &= MPI_Allreduce(send_[k].data(), recv_[k].data(), static_cast<int>(count_), MPI_FLOAT, MPI_SUM,
                            MPI_COMM_WORLD) == MPI_SUCCESS;
      } else {
        ok &= comm_.AllReduce(send_[k].data(), recv_[k].data(), count_, DataType::kFloat32, ReduceOp::kSum).ok();
      }
    }
    if (how == "group") ok &= comm_.GroupEnd().ok();
    return ok;
  }

  bool Exact() {
    bool exact = true;
    for (int k = 0; k < o_.calls; ++k) {
      for (size_t i = 0; i < count_; ++i) {
        float want = 0;
        for (int r = 0; r < nranks_; ++r) want += static_cast<float>((r + k + i) % 7);
        exact &= recv_[k][i] == want;
      }
      std::fill(recv_[k].begin(), recv_[k].end(), -1.0f);
    }
    return exact;
  }

  // The median time of a set over -n sets, the largest across ranks; `exact` cleared on a wrong or failed set.
  double Median(const std::string& how, bool* exact) {
    for (int w = 0; w < 10; ++w) *exact &= Set(how);
    *exact &= Exact();
    std::vector<double> seconds;
    for (int i = 0; i < o_.iters; ++i) {
      MPI_Barrier(MPI_COMM_WORLD);
      const auto t0 = Clock::now();
      *exact &= Set(how);
      seconds.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    *exact &= Exact();
    std::sort(seconds.begin(), seconds.end());
    double median = seconds[seconds.size() / 2];
    MPI_Allreduce(MPI_IN_PLACE, &median, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int all = *exact ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    *exact = all == 1;
    return median;
  }

 private:
  Communicator& comm_;
  const GroupOptions& o_;
  size_t count_;
  int rank_ = 0, nranks_ = 1;
  std::vector<std::vector<float>> send_, recv_;
};

int RunRanks(const GroupOptions& o, Communicator& comm) {
  const int rank = comm.rank();
  if (rank == 0) {
    std::printf("# %d AllReduces of %zu B (float32 sum) per set on %d ranks; kcoll: %s\n", o.calls, o.bytes,
                comm.size(), comm.execution().c_str());
    std::printf("# median time of a set over %d sets, the largest across ranks; the ways take turns, %d rounds\n",
                o.iters, o.rounds);
    std::printf("%5s %12s %12s %12s %12s %12s %6s\n", "round", "kcoll_us", "group_us", "mpi_us", "kcoll/group",
                "mpi/group", "exact");
  }
  Runner runner(comm, o);
  bool all_exact = true;
  for (int round = 0; round < o.rounds; ++round) {
    bool exact = true;
    const double kcoll = runner.Median("kcoll", &exact);
    const double group = runner.Median("group", &exact);
    const double mpi = runner.Median("mpi", &exact);
    all_exact &= exact;
    if (rank == 0) {
      std::printf("%5d %12.2f %12.2f %12.2f %12.2f %12.2f %6s\n", round, kcoll * 1e6, group * 1e6, mpi * 1e6,
                  kcoll / group, mpi / group, exact ? "yes" : "NO");
      std::fflush(stdout);
    }
  }
  return all_exact ? 0 : 1;
}

}  // namespace
}  // namespace bench
}  // namespace kcoll

int main(int argc, char** argv) {
  return kcoll::bench::RankProgramMain(argc, argv, "group", &kcoll::bench::Parse, &kcoll::bench::RunRanks);
}
