// How a benchmark binary gets its ranks. Started plainly (bazel run), it re-executes itself under mpirun with
// --ranks ranks; started by mpirun (Open MPI's OMPI_COMM_WORLD_SIZE or a PMIx/PMI rank in the environment), it is
// already one of the ranks.
//
// The mpirun line is chosen deliberately: --oversubscribe always (more ranks than cores must still run); with the
// serial execution space each rank is bound to a core (--bind-to core: steadier timings), round-robin when there are
// more ranks than cores (--bind-to core:overload-allowed; left free, oversubscribed ranks swung 2-3x between runs),
// with OpenMP nothing is bound (--bind-to none: the threads must be free to move), and idle ranks yield when
// oversubscribed (OMPI_MCA_mpi_yield_when_idle=1). OMP_NUM_THREADS is 1 per rank for the
// serial space (Kokkos' OpenMP runtime must not spin threads beside the ranks) and cores/ranks for openmp, unless
// set already. Built against MPICH, the launcher is Hydra, with the same binding in its syntax (mpi_launcher.h).
#ifndef KCOLL_BENCH_OPTIONS_LAUNCHER_H_
#define KCOLL_BENCH_OPTIONS_LAUNCHER_H_

#include <string>
#include <utility>
#include <vector>

#include "bench/options/mpi_launcher.h"
#include "bench/options/options.h"

namespace kcoll {
namespace bench {

// (StartedByMpiLauncher, in mpi_launcher.h: whether this process is already one rank of an MPI job.)
// This process's rank as the launcher's environment tells it before MPI_Init (0 when unknown).
int RankFromEnvironment();
// True when this process is a rank that LaunchUnderMpirun started.
bool LaunchedByBenchmark();

struct LaunchPlan {
  std::vector<std::string> argv;                           // mpirun and its arguments, then the program
  std::vector<std::pair<std::string, std::string>> env;    // variables to set (not overriding the user's)
  std::vector<std::pair<std::string, std::string>> force;  // variables to set unconditionally
  std::string description;                                 // for the output header
};

// The mpirun command for `options` (ranks, exec space, ranks per node) on a machine with `cores` cores, in the
// syntax of `launcher`.
LaunchPlan PlanLaunch(const BenchOptions& options, const std::string& mpirun, const std::string& program,
                      const std::vector<std::string>& args, int cores, MpiLauncher launcher = BuiltMpiLauncher());

// With --hosts H: the hosts are made on this machine by tools/cluster.sh (`cluster_sh`), the job runs across them
// (`cluster.sh run`: mpirun in the first host, --ranks / H ranks per host, TCP between), and the hosts are removed
// when it ends. The plan runs a short bash script; a machine where the hosts cannot be made (no root) ends it with
// status 2 and cluster.sh's reason.
LaunchPlan PlanHostsLaunch(const BenchOptions& options, const std::string& cluster_sh, const std::string& program,
                           const std::vector<std::string>& args);

// tools/cluster.sh: $KCOLL_CLUSTER_SH, else in this binary's runfiles (a data dependency of the benchmarks); empty
// when it is in neither.
std::string ClusterScriptPath();

// Sets the plan's environment and replaces this process with mpirun. Returns only on failure (the exit code to use,
// after printing why).
int ExecLaunchPlan(const LaunchPlan& plan);

// The mpirun kcoll was built against ($KCOLL_MPIRUN overrides it).
std::string MpirunPath();

// This process's executable, for mpirun to start as the ranks (argv[0] may be relative to a directory mpirun does not
// start in); empty when it cannot be read.
std::string SelfExecutable();

// Starts this program's ranks: replaces this process with mpirun running SelfExecutable() with `args`, planned by
// PlanLaunch for `cores` cores, with `force` added to the plan's variables set unconditionally. Returns only on
// failure: 2 when the executable cannot be found (saying so, prefixed with `program`), else ExecLaunchPlan's code.
int LaunchSelf(const BenchOptions& options, const std::vector<std::string>& args, int cores, const std::string& program,
               const std::vector<std::pair<std::string, std::string>>& force = {});

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_OPTIONS_LAUNCHER_H_
