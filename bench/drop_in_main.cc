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
// largest across ranks of the mean over -n calls, taken in 8 blocks that alternate with the other rows' blocks (the
// rows see the same machine state). Rounds repeat the sizes; each size prints each row's median over rounds, and the
// medians of each round's drop-in minus kcoll (the library's overhead) and drop-in / kcoll. kcoll's call runs twice:
// on the program's own communicator and on the one the library made for MPI_COMM_WORLD; the overhead is taken against
// the second, so that it is the library's code alone, not where two communicators' shared memory happens to sit.
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

// Each row's calls of a round run in this many blocks, alternating with the other rows' blocks.
constexpr int kBlocksPerRow = 8;

// One call of `row` on `count` floats. kKcoll runs on the program's own communicator, kKcollSameComm on the one the
// library made for MPI_COMM_WORLD (`library_comm`).
void Call(Row row, Communicator& own_comm, Communicator& library_comm, std::vector<float>& data, size_t count,
          bool nonblocking) {
  Communicator& comm = row == kKcollSameComm ? library_comm : own_comm;
  const int n = static_cast<int>(count);
  MPI_Request request;
  switch (row) {
    case kMpi:
      if (!nonblocking) {
        PMPI_Allreduce(MPI_IN_PLACE, data.data(), n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        return;
      }
      PMPI_Iallreduce(MPI_IN_PLACE, data.data(), n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &request);
      PMPI_Wait(&request, MPI_STATUS_IGNORE);
      return;
    case kDropIn:
      if (!nonblocking) {
        MPI_Allreduce(MPI_IN_PLACE, data.data(), n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        return;
      }
      MPI_Iallreduce(MPI_IN_PLACE, data.data(), n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &request);
      MPI_Wait(&request, MPI_STATUS_IGNORE);
      return;
    default:
      if (!nonblocking) {
        comm.AllReduce(data.data(), data.data(), count, DataType::kFloat32, ReduceOp::kSum).IgnoreError();
        return;
      }
      comm.IAllReduce(data.data(), data.data(), count, DataType::kFloat32, ReduceOp::kSum).Wait().IgnoreError();
  }
}

// Seconds per call of each of `rows` at `count` floats, the largest across ranks. The rows' -n calls are split into
// blocks taken in turn (A B B A A B ...), so the rows compared see the same machine state, and none always follows
// the same other row: the drop-in library against kcoll's call on the same communicator differs by less than the
// VM's drift between two rows timed one after the other.
std::vector<double> TimeInterleaved(const std::vector<Row>& rows, Communicator& own_comm, Communicator& library_comm,
                                    std::vector<float>& data, size_t count, const DropInOptions& o) {
  const int per_block = std::max(1, o.iters / kBlocksPerRow);
  for (Row row : rows) {
    for (int i = 0; i < o.warmup; ++i) Call(row, own_comm, library_comm, data, count, o.nonblocking);
  }
  std::vector<double> seconds(rows.size(), 0.0);
  PMPI_Barrier(MPI_COMM_WORLD);
  for (int block = 0; block < kBlocksPerRow; ++block) {
    for (size_t k = 0; k < rows.size(); ++k) {
      // Forward in even blocks, backward in odd ones.
      const size_t r = block % 2 == 0 ? k : rows.size() - 1 - k;
      const double start = MPI_Wtime();
      for (int i = 0; i < per_block; ++i) Call(rows[r], own_comm, library_comm, data, count, o.nonblocking);
      seconds[r] += MPI_Wtime() - start;
    }
  }
  for (double& s : seconds) s /= per_block * kBlocksPerRow;
  PMPI_Allreduce(MPI_IN_PLACE, seconds.data(), static_cast<int>(seconds.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
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
      // Every row's blocks interleave with every other's; the rows' order turns with the round.
      std::vector<Row> rows;
      for (int r = 0; r < kRows; ++r) rows.push_back(static_cast<Row>((r + round) % kRows));
      const std::vector<double> seconds =
          TimeInterleaved(rows, comm, *library_comm, data, std::max<size_t>(1, sizes[s] / sizeof(float)), o);
      for (size_t r = 0; r < rows.size(); ++r) times[s][rows[r]].push_back(seconds[r]);
    }
  }
  if (rank == 0) {
    std::printf("# %s through the drop-in library beside kcoll's %s and MPI's own, %d ranks\n",
                o.nonblocking ? "MPI_Iallreduce + MPI_Wait" : "MPI_Allreduce",
                o.nonblocking ? "IAllReduce + Wait" : "AllReduce", comm.size());
    std::printf(
        "# float32 sum in place; us per call, the largest across ranks, medians of %d rounds of %d calls in %d blocks "
        "alternating with the other rows'\n",
        o.rounds, std::max(1, o.iters / kBlocksPerRow) * kBlocksPerRow, kBlocksPerRow);
    std::printf(
        "# kcoll_us: kcoll's call on the program's own communicator; same_comm_us: on the one the library made\n");
    std::printf("# for MPI_COMM_WORLD, which the overhead columns compare with (the library's code, nothing else)\n");
    std::printf("%12s %12s %12s %12s %12s %16s %14s\n", "bytes", "mpi_us", "drop-in_us", "kcoll_us", "same_comm_us",
                "drop-in-kcoll_us", "drop-in/kcoll");
    for (size_t s = 0; s < sizes.size(); ++s) {
      const double mpi = Median(times[s][kMpi]) * 1e6, drop_in = Median(times[s][kDropIn]) * 1e6,
                   kcoll = Median(times[s][kKcoll]) * 1e6, same = Median(times[s][kKcollSameComm]) * 1e6;
      // The overhead columns pair each round's two rows (their blocks interleaved): medians of those pairs.
      std::vector<double> differences, ratios;
      for (int round = 0; round < o.rounds; ++round) {
        differences.push_back((times[s][kDropIn][round] - times[s][kKcollSameComm][round]) * 1e6);
        ratios.push_back(times[s][kDropIn][round] / times[s][kKcollSameComm][round]);
      }
      std::printf("%12zu %12.3f %12.3f %12.3f %12.3f %16.3f %14.3f\n", sizes[s], mpi, drop_in, kcoll, same,
                  Median(differences), Median(ratios));
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
