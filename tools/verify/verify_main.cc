// kcoll's cross-backend check as a command: every collective x algorithm on every transport x execution space x
// numerics mode this machine has, each cell checked on exact and rounding-sensitive data (cell.h), printed as a
// matrix with a closing line "N passed, M failed"; exit status 1 when a cell failed.
//
//   bazel run -c opt //tools:verify -- --ranks 4         (launches its ranks with the mpirun kcoll was built with)
//   mpirun -np 4 kcoll-verify --json verify.json         (installed by tools/install.sh)
//
// Threads: started plainly, every rank runs one thread for the serial columns and OMP_NUM_THREADS (default 2) for the
// openmp ones, with OMP_WAIT_POLICY=passive unless set: ranks share the cores, and waiting threads must yield them.
#include <mpi.h>
#include <sched.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "base/env.h"
#include "bench/options/launcher.h"
#include "bench/options/mpi_launcher.h"
#include "collectives/communicator.h"
#include "collectives/kernels/backend.h"
#include "tools/verify/cell.h"
#include "tools/verify/grid.h"
#include "tools/verify/matrix.h"
#include "tools/verify/options.h"

namespace kcoll {
namespace verify {
namespace {

constexpr char kProgram[] = "verify";

int CoreCount() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
}

std::string MpiLibrary() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(version, &length);
  std::string line(version, static_cast<size_t>(std::max(0, length)));
  line = line.substr(0, line.find_first_of("\n,"));
  return line;
}

int Launch(const VerifyOptions& options, const std::vector<std::string>& args) {
  bench::BenchOptions launch;
  launch.ranks = options.ranks;
  launch.ranks_given = true;
  launch.exec = "serial";  // one core per rank, round-robin when ranks outnumber cores
  launch.ranks_per_node = options.ranks_per_node;
  std::vector<std::pair<std::string, std::string>> force;
  force.emplace_back("OMP_NUM_THREADS", GetEnv("OMP_NUM_THREADS") != nullptr ? GetEnv("OMP_NUM_THREADS") : "2");
  force.emplace_back("OMP_WAIT_POLICY", GetEnv("OMP_WAIT_POLICY") != nullptr ? GetEnv("OMP_WAIT_POLICY") : "passive");
  return bench::LaunchSelf(launch, args, CoreCount(), kProgram, force);
}

Matrix RunMatrix(const VerifyOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  Matrix m;
  m.ranks = ranks;
  m.mpi = MpiLibrary();
  m.counts = options.counts;
  m.rows = MakeRows(options);
  m.setups = MakeSetups(options, &m.skipped);
  m.columns = MakeColumns(options, m.setups);
  m.setup_errors.assign(m.setups.size(), "");
  m.cells.assign(m.rows.size(), std::vector<CellResult>(m.columns.size()));
  VendorResults vendor(MPI_COMM_WORLD);
  for (size_t s = 0; s < m.setups.size(); ++s) {
    const Setup& setup = m.setups[s];
    CommunicatorOptions comm_options;
    comm_options.backend = setup.exec;
    comm_options.transport = setup.transport;
    comm_options.ranks_per_node = options.ranks_per_node;
    comm_options.timeout = absl::Seconds(120);  // a hung schedule fails its cell instead of the run
    auto comm = Communicator::Create(MPI_COMM_WORLD, comm_options);
    if (!comm.ok()) m.setup_errors[s] = std::string(comm.status().message());
    if (rank == 0) std::fprintf(stderr, "[verify] %s\n", setup.name.c_str());
    for (size_t r = 0; r < m.rows.size(); ++r) {
      for (size_t c = 0; c < m.columns.size(); ++c) {
        if (m.columns[c].setup != static_cast<int>(s)) continue;
        CellResult& cell = m.cells[r][c];
        cell.code = comm.ok() ? NotApplicable(m.rows[r], setup, m.columns[c].numerics) : "(setup)";
        if (!cell.code.empty()) {
          cell.state = CellResult::State::kNotApplicable;
          continue;
        }
        cell = RunCell(**comm, options, m.rows[r], setup, m.columns[c].numerics, vendor);
      }
    }
    if (comm.ok()) (*comm)->Finalize().IgnoreError();
  }
  for (const auto& [collective, calls] : vendor.calls()) {
    // A disagreement on any rank fails the collective's vendor row.
    int disagrees = vendor.disagreements().at(collective).empty() ? 0 : 1;
    MPI_Allreduce(MPI_IN_PLACE, &disagrees, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    std::string what = vendor.disagreements().at(collective);
    if (disagrees != 0 && what.empty()) what = "differs from the reference on another rank";
    m.vendor.push_back({collective, calls, disagrees != 0 ? absl::StrCat("rank ", rank, ": ", what) : ""});
  }
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return m;
}

}  // namespace
}  // namespace verify
}  // namespace kcoll

int main(int argc, char** argv) {
  using namespace kcoll::verify;  // NOLINT: the program's own namespace
  const std::vector<std::string> args(argv + 1, argv + argc);
  const bool under_mpi = kcoll::bench::StartedByMpiLauncher();
  const bool printer = !under_mpi || kcoll::bench::RankFromEnvironment() == 0;
  auto parsed = ParseVerifyOptions(args);
  if (!parsed.ok()) {
    if (printer)
      std::fprintf(stderr, "%s: %s\nrun with --help for the options\n", kProgram,
                   std::string(parsed.status().message()).c_str());
    return 2;
  }
  VerifyOptions options = *parsed;
  if (options.help) {
    if (printer) std::printf("%s", VerifyUsage(kProgram).c_str());
    return 0;
  }
  if (!options.json_path.empty() && options.json_path[0] != '/') {
    // `bazel run` starts the program in its runfiles tree: a relative path is relative to where the user typed it.
    if (const char* cwd = kcoll::GetEnv("BUILD_WORKING_DIRECTORY"); cwd != nullptr && *cwd != '\0') {
      options.json_path = absl::StrCat(cwd, "/", options.json_path);
    }
  }
  if (!under_mpi) return Launch(options, args);

  // MPI_THREAD_MULTIPLE where the MPI gives it: a nonblocking call of MPI's own collective (the vendor row) may run on
  // the progress thread.
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  kcoll::InitializeKokkosQuietly(argc, argv);
  int code = 0;
  {
    const Matrix matrix = RunMatrix(options);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
      std::printf("%s", FormatMatrix(matrix).c_str());
      std::fflush(stdout);
      if (!options.json_path.empty()) {
        std::ofstream json(options.json_path);
        json << MatrixJson(matrix);
        if (!json) {
          std::fprintf(stderr, "%s: --json: cannot write '%s'\n", kProgram, options.json_path.c_str());
          code = 2;
        }
      }
    }
    if (code == 0) code = matrix.Count(CellResult::State::kFail) > 0 ? 1 : 0;
  }
  Kokkos::finalize();
  MPI_Finalize();
  return code;
}
