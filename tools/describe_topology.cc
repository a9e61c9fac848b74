// Prints a communicator's topology block (KCOLL_DEBUG=INFO) and, after one AllReduce, its counters.
//
//   bazel run //tools:describe_topology -- --ranks 4 --ranks_per_node 2
//   mpirun -np 4 bazel-bin/tools/describe_topology --json
//
// With --ranks N and not already under mpirun, it launches itself as N ranks with the mpirun kcoll was built
// against. --json also prints Communicator::DescribeJson() from rank 0 on stdout.
#include <mpi.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "bench/options/mpi_launcher.h"
#include "collectives/communicator.h"
#include "kcoll_mpi_paths.h"

ABSL_FLAG(int, ranks, 0, "launch this many ranks with mpirun (ignored when already under mpirun)");
ABSL_FLAG(int, ranks_per_node, 0, "emulated ranks per node (0: $KCOLL_RANKS_PER_NODE, else MPI's nodes)");
ABSL_FLAG(int, nchannels, 0, "channels (0: $KCOLL_NCHANNELS, else the default)");
ABSL_FLAG(int64_t, count, 1 << 20, "float32 elements of the AllReduce run before the counters are printed");
ABSL_FLAG(std::string, algo, "auto", "AllReduce algorithm");
ABSL_FLAG(bool, json, false, "print the JSON description from rank 0 on stdout");

namespace {

// Replaces this process with `mpirun -np ranks <this binary> <args>`.
int Relaunch(int ranks, int argc, char** argv) {
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 0);
  setenv("OMPI_MCA_mpi_yield_when_idle", "1", 0);
  char self[4096] = {};
  if (readlink("/proc/self/exe", self, sizeof(self) - 1) <= 0) {
    std::fprintf(stderr, "describe_topology: cannot find its own path\n");
    return 1;
  }
  std::vector<std::string> launcher =
      kcoll::bench::LauncherArguments(kcoll::bench::BuiltMpiLauncher(), ranks, kcoll::bench::RankBinding::kNone);
  std::vector<char*> args = {const_cast<char*>(KCOLL_MPIRUN)};
  for (std::string& a : launcher) args.push_back(a.data());
  args.push_back(self);
  for (int i = 1; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  execv(KCOLL_MPIRUN, args.data());
  std::fprintf(stderr, "describe_topology: cannot run %s\n", KCOLL_MPIRUN);
  return 1;
}

int Run() {
  kcoll::CommunicatorOptions options;
  options.ranks_per_node = absl::GetFlag(FLAGS_ranks_per_node);
  options.nchannels = absl::GetFlag(FLAGS_nchannels);
  auto comm = kcoll::Communicator::Create(MPI_COMM_WORLD, options);
  if (!comm.ok()) {
    std::fprintf(stderr, "describe_topology: %s\n", comm.status().ToString().c_str());
    return 1;
  }
  auto algorithm = kcoll::ParseAlgorithm(absl::GetFlag(FLAGS_algo));
  if (!algorithm.ok()) {
    std::fprintf(stderr, "describe_topology: --algo: %s\n", algorithm.status().ToString().c_str());
    return 1;
  }
  const size_t count = static_cast<size_t>(absl::GetFlag(FLAGS_count));
  std::vector<float> data(count, 1.0f);
  kcoll::CallOptions call;
  call.algorithm = *algorithm;
  absl::Status s =
      (*comm)->AllReduce(data.data(), data.data(), count, kcoll::DataType::kFloat32, kcoll::ReduceOp::kSum, call);
  if (!s.ok()) {
    std::fprintf(stderr, "describe_topology: AllReduce: %s\n", s.ToString().c_str());
    return 1;
  }
  if (absl::GetFlag(FLAGS_json) && (*comm)->rank() == 0) std::printf("%s\n", (*comm)->DescribeJson().c_str());
  return (*comm)->Finalize().ok() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const int ranks = absl::GetFlag(FLAGS_ranks);
  if (ranks > 0 && !kcoll::bench::StartedByMpiLauncher()) return Relaunch(ranks, argc, argv);
  // The point of this program is the INFO block; TRACE (or NONE) from the environment wins.
  setenv("KCOLL_DEBUG", "INFO", /*overwrite=*/0);
  MPI_Init(&argc, &argv);
  int result = 0;
  {
    std::vector<char*> kokkos_args(argv, argv + argc);
    char disable_warnings[] = "--kokkos-disable-warnings";  // ranks may outnumber cores here on purpose
    kokkos_args.push_back(disable_warnings);
    int kokkos_argc = static_cast<int>(kokkos_args.size());
    Kokkos::ScopeGuard kokkos(kokkos_argc, kokkos_args.data());
    result = Run();
  }
  MPI_Finalize();
  return result;
}
