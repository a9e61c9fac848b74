// The MPI drop-in library's cost: MPI_Allreduce through libkcoll_mpi's definition beside kcoll's own AllReduce and
// the MPI underneath (PMPI_Allreduce), in one program and one run, with the same timing loop for each.
//
//   bazel run -c opt //bench:drop_in -- [--ranks 2] [-b 8] [-e 64M] [-f 8] [-n 200] [-w 20] [--rounds 5]
//                                       [--nonblocking 1]
//
// --nonblocking 1: the nonblocking forms, each call waited for at once: MPI_Iallreduce and MPI_Wait (the library's
// generalized request), kcoll's IAllReduce and Wait, PMPI_Iallreduce and PMPI_Wait.
// This binary links the drop-in library's code (//mpi_drop_in:drop_in), so its MPI_Allreduce is the library's, as in a
// program that preloads libkcoll_mpi.so. float32 sums in place of ordinary buffers; each row's time per call is the
// largest across ranks of the mean over -n calls; rounds interleave the rows and sizes, and each size prints the
// medians over rounds: drop-in minus kcoll (the library's overhead) and their ratio. kcoll's call runs twice: on the
// program's own communicator and on the one the library made for MPI_COMM_WORLD; the overhead is taken against the
// second, so that it is the library's code alone, not where two communicators' shared memory happens to sit.
#include <mpi.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/byte_size.h"
#include "bench/options/rank_program.h"
#include "collectives/communicator.h"
#include "collectives/kernels/backend.h"
#include "mpi_drop_in/comm_registry.h"

namespace kcoll {
namespace bench {
namespace {

struct DropInOptions : SweepOptions {
  DropInOptions() {
    max_bytes = size_t{64} << 20;
    rounds = 5;
  }
  bool nonblocking = false;
};

absl::StatusOr<DropInOptions> Parse(const std::vector<std::string>& args) {
  FlagTable<DropInOptions> flags = SweepFlags<DropInOptions>(/*min_ranks=*/2);
  flags.push_back({"--nonblocking", [](const std::string& value, DropInOptions& o) {
                     o.nonblocking = value == "1";
                     return value == "0" || value == "1";
                   }});
  absl::StatusOr<DropInOptions> o = ParseFlags(args, flags);
  if (o.ok() && o->min_bytes > o->max_bytes) return absl::InvalidArgumentError("-b is larger than -e");
  return o;
}

enum Row { kMpi, kDropIn, kKcoll, kKcollSameComm, kRows };

// Seconds per call of `row` at `count` floats, the largest across ranks. kKcoll runs on the program's own
// communicator, kKcollSameComm on the one the library made for MPI_COMM_WORLD (`library_comm`).
double Time(Row row, Communicator& own_comm, Communicator& library_comm, std::vector<float>& data, size_t count,
            const DropInOptions& o) {
  Communicator& comm = row == kKcollSameComm ? library_comm : own_comm;
  const int n = static_cast<int>(count);
  auto blocking = [&] {
    switch (row) {
      case kMpi:
        PMPI_Allreduce(MPI_IN_PLACE, data.data(), n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        break;
      case kDropIn:
        MPI_Allreduce(MPI_IN_PLACE, data.data(), n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        break;
      default:
        comm.AllReduce(data.data(), data.data(), count, DataType::kFloat32, ReduceOp::kSum).IgnoreError();
    }
  };
  auto nonblocking = [&] {
    MPI_Request request;
    switch (row) {
      case kMpi:
        PMPI_Iallreduce(MPI_IN_PLACE, data.data(), n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &request);
        PMPI_Wait(&request, MPI_STATUS_IGNORE);
        break;
      case kDropIn:
        MPI_Iallreduce(MPI_IN_PLACE, data.data(), n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &request);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        break;
      default:
        comm.IAllReduce(data.data(), data.data(), count, DataType::kFloat32, ReduceOp::kSum).Wait().IgnoreError();
    }
  };
  auto call = [&] { o.nonblocking ? nonblocking() : blocking(); };
  for (int i = 0; i < o.warmup; ++i) call();
  PMPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int i = 0; i < o.iters; ++i) call();
  double seconds = (MPI_Wtime() - start) / o.iters;
  PMPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return seconds;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

int RunRanks(const DropInOptions& o, Communicator& comm) {
  const int rank = comm.rank();
  const std::vector<size_t> sizes = SweepSizes(o);
  std::vector<float> data(o.max_bytes / sizeof(float), 1.0f / 1024);
  // The library makes its communicator at a blocking collective (a nonblocking call may not wait for the ranks).
  MPI_Allreduce(MPI_IN_PLACE, data.data(), 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  Communicator* library_comm = drop_in::RouteOf(MPI_COMM_WORLD).kcoll;
  if (library_comm == nullptr) {
    if (rank == 0)
      std::fprintf(stderr, "drop_in: the library runs MPI_COMM_WORLD's calls on MPI, nothing to compare\n");
    return 1;
  }
  // [size][row] -> one time per round
  std::vector<std::vector<std::vector<double>>> times(sizes.size(), std::vector<std::vector<double>>(kRows));
  for (int round = 0; round < o.rounds; ++round) {
    for (size_t s = 0; s < sizes.size(); ++s) {
      for (int r = 0; r < kRows; ++r) {
        // The order of the rows turns with the round, so that none always runs first.
        const Row row = static_cast<Row>((r + round) % kRows);
        times[s][row].push_back(Time(row, comm, *library_comm, data, std::max<size_t>(1, sizes[s] / sizeof(float)), o));
      }
    }
  }
  if (rank == 0) {
    std::printf("# %s through the drop-in library beside kcoll's %s and MPI's own, %d ranks\n",
                o.nonblocking ? "MPI_Iallreduce + MPI_Wait" : "MPI_Allreduce",
                o.nonblocking ? "IAllReduce + Wait" : "AllReduce", comm.size());
    std::printf("# float32 sum in place; us per call, the largest across ranks, medians of %d rounds of %d calls\n",
                o.rounds, o.iters);
    std::printf(
        "# kcoll_us: kcoll's call on the program's own communicator; same_comm_us: on the one the library made\n");
    std::printf("# for MPI_COMM_WORLD, which the overhead columns compare with (the library's code, nothing else)\n");
    std::printf("%12s %12s %12s %12s %12s %16s %14s\n", "bytes", "mpi_us", "drop-in_us", "kcoll_us", "same_comm_us",
                "drop-in-kcoll_us", "drop-in/kcoll");
    for (size_t s = 0; s < sizes.size(); ++s) {
      const double mpi = Median(times[s][kMpi]) * 1e6, drop_in = Median(times[s][kDropIn]) * 1e6,
                   kcoll = Median(times[s][kKcoll]) * 1e6, same = Median(times[s][kKcollSameComm]) * 1e6;
      std::vector<double> differences;
      for (int round = 0; round < o.rounds; ++round) {
        differences.push_back((times[s][kDropIn][round] - times[s][kKcollSameComm][round]) * 1e6);
      }
      std::printf("%12zu %12.3f %12.3f %12.3f %12.3f %16.3f %14.3f\n", sizes[s], mpi, drop_in, kcoll, same,
                  Median(differences), drop_in / same);
    }
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace
}  // namespace bench
}  // namespace kcoll

int main(int argc, char** argv) {
  return kcoll::bench::RankProgramMain(argc, argv, "drop_in", &kcoll::bench::Parse, &kcoll::bench::RunRanks);
}
