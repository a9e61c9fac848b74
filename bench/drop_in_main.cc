// The MPI drop-in library's cost: MPI_Allreduce through libkcoll_mpi's definition beside kcoll's own AllReduce and
// the MPI underneath (PMPI_Allreduce), in one program and one run, with the same timing loop for the three.
//
//   bazel run -c opt //bench:drop_in -- [--ranks 2] [-b 8] [-e 64M] [-f 8] [-n 200] [-w 20] [--rounds 5]
//
// This binary links the drop-in library's code (//mpi_drop_in:drop_in), so its MPI_Allreduce is the library's, as in a
// program that preloads libkcoll_mpi.so. float32 sums in place of ordinary buffers; each row's time per call is the
// largest across ranks of the mean over -n calls; rounds interleave the rows and sizes, and each size prints the
// medians over rounds: drop-in minus kcoll (the library's overhead) and their ratio.
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
#include "bench/options/launcher.h"
#include "collectives/communicator.h"
#include "collectives/kernels/backend.h"

namespace kcoll {
namespace bench {
namespace {

struct DropInOptions {
  int ranks = 2;
  size_t min_bytes = 8, max_bytes = size_t{64} << 20, factor = 8;
  int iters = 200, warmup = 20, rounds = 5;
};

absl::StatusOr<DropInOptions> Parse(const std::vector<std::string>& args) {
  DropInOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag.rfind("--kokkos", 0) == 0) continue;
    if (i + 1 >= args.size()) return absl::InvalidArgumentError(absl::StrCat(flag, ": needs a value"));
    const std::string& value = args[++i];
    auto bad = [&] { return absl::InvalidArgumentError(absl::StrCat(flag, ": '", value, "' is not valid")); };
    if (flag == "--ranks") {
      if (!absl::SimpleAtoi(value, &o.ranks) || o.ranks < 2) return bad();
    } else if (flag == "-b" || flag == "-e") {
      absl::StatusOr<size_t> bytes = ParseByteSize(value);
      if (!bytes.ok() || *bytes < 4) return bad();
      (flag == "-b" ? o.min_bytes : o.max_bytes) = *bytes;
    } else if (flag == "-f") {
      if (!absl::SimpleAtoi(value, &o.factor) || o.factor < 2) return bad();
    } else if (flag == "-n") {
      if (!absl::SimpleAtoi(value, &o.iters) || o.iters < 1) return bad();
    } else if (flag == "-w") {
      if (!absl::SimpleAtoi(value, &o.warmup) || o.warmup < 0) return bad();
    } else if (flag == "--rounds") {
      if (!absl::SimpleAtoi(value, &o.rounds) || o.rounds < 1) return bad();
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown option '", flag, "'"));
    }
  }
  if (o.min_bytes > o.max_bytes) return absl::InvalidArgumentError("-b is larger than -e");
  return o;
}

enum Row { kMpi, kDropIn, kKcoll, kRows };
constexpr const char* kRowNames[kRows] = {"mpi", "drop-in", "kcoll"};

// Seconds per call of `row` at `count` floats, the largest across ranks.
double Time(Row row, Communicator& comm, std::vector<float>& data, size_t count, const DropInOptions& o) {
  auto call = [&] {
    switch (row) {
      case kMpi:
        PMPI_Allreduce(MPI_IN_PLACE, data.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        break;
      case kDropIn:
        MPI_Allreduce(MPI_IN_PLACE, data.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        break;
      default:
        comm.AllReduce(data.data(), data.data(), count, DataType::kFloat32, ReduceOp::kSum).IgnoreError();
    }
  };
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

int RunRanks(const DropInOptions& o) {
  absl::StatusOr<std::unique_ptr<Communicator>> comm = Communicator::Create(MPI_COMM_WORLD);
  if (!comm.ok()) {
    std::fprintf(stderr, "drop_in: %s\n", comm.status().ToString().c_str());
    return 1;
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<size_t> sizes;
  for (size_t b = o.min_bytes; b <= o.max_bytes; b *= o.factor) sizes.push_back(b);
  std::vector<float> data(o.max_bytes / sizeof(float), 1.0f / 1024);
  // [size][row] -> one time per round
  std::vector<std::vector<std::vector<double>>> times(sizes.size(), std::vector<std::vector<double>>(kRows));
  for (int round = 0; round < o.rounds; ++round) {
    for (size_t s = 0; s < sizes.size(); ++s) {
      for (int r = 0; r < kRows; ++r) {
        // The order of the rows turns with the round, so that none always runs first.
        const Row row = static_cast<Row>((r + round) % kRows);
        times[s][row].push_back(Time(row, **comm, data, std::max<size_t>(1, sizes[s] / sizeof(float)), o));
      }
    }
  }
  if (rank == 0) {
    std::printf("# MPI_Allreduce through the drop-in library beside kcoll's AllReduce and MPI's own, %d ranks\n",
                (*comm)->size());
    std::printf("# float32 sum in place; us per call, the largest across ranks, medians of %d rounds of %d calls\n",
                o.rounds, o.iters);
    std::printf("%12s %12s %12s %12s %16s %14s\n", "bytes", "mpi_us", "drop-in_us", "kcoll_us", "drop-in-kcoll_us",
                "drop-in/kcoll");
    for (size_t s = 0; s < sizes.size(); ++s) {
      const double mpi = Median(times[s][kMpi]) * 1e6, drop_in = Median(times[s][kDropIn]) * 1e6,
                   kcoll = Median(times[s][kKcoll]) * 1e6;
      std::vector<double> differences;
      for (int round = 0; round < o.rounds; ++round) {
        differences.push_back((times[s][kDropIn][round] - times[s][kKcoll][round]) * 1e6);
      }
      std::printf("%12zu %12.3f %12.3f %12.3f %16.3f %14.3f\n", sizes[s], mpi, drop_in, kcoll, Median(differences),
                  drop_in / kcoll);
    }
    std::fflush(stdout);
  }
  (*comm)->Finalize().IgnoreError();
  return 0;
}

int Main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  absl::StatusOr<DropInOptions> options = Parse(args);
  if (!options.ok()) {
    if (!StartedByMpiLauncher() || RankFromEnvironment() == 0) {
      std::fprintf(stderr, "drop_in: %s\n", std::string(options.status().message()).c_str());
    }
    return 2;
  }
  if (!StartedByMpiLauncher()) {
    BenchOptions launch;
    launch.ranks = options->ranks;
    return LaunchSelf(launch, args, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)), "drop_in");
  }
  MPI_Init(&argc, &argv);
  InitializeKokkosQuietly(argc, argv);
  const int code = RunRanks(*options);
  // MPI_Finalize (the library's) releases its communicators; Kokkos, started here, is finalised after them.
  Kokkos::finalize();
  MPI_Finalize();
  return code;
}

}  // namespace
}  // namespace bench
}  // namespace kcoll

int main(int argc, char** argv) { return kcoll::bench::Main(argc, argv); }
