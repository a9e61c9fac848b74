// How the MPI launchers are told the rank count, the binding and oversubscription. Open MPI's mpirun and MPICH's
// Hydra (mpiexec, Debian's mpirun.mpich) spell them differently, and a program must be started by the launcher of the
// MPI it was built against, so the kind comes from the MPI headers of this build.
#ifndef KCOLL_BENCH_OPTIONS_MPI_LAUNCHER_H_
#define KCOLL_BENCH_OPTIONS_MPI_LAUNCHER_H_

#include <string>
#include <vector>

namespace kcoll {
namespace bench {

enum class MpiLauncher { kOpenMpi, kHydra };

// The launcher of the MPI this program was built against: Hydra for MPICH (and its derivatives), else Open MPI's.
MpiLauncher BuiltMpiLauncher();
const char* MpiLauncherName(MpiLauncher launcher);  // "Open MPI mpirun", "MPICH Hydra"

// True when this process is one rank of an MPI job, whichever launcher started it (Open MPI's OMPI_COMM_WORLD_SIZE,
// PMIx's PMIX_RANK, or the PMI_RANK and PMI_SIZE of MPICH's Hydra): it must not launch another.
bool StartedByMpiLauncher();

// What each rank is bound to. kCoreRoundRobin: to a core, rank r on core r mod cores, for more ranks than cores.
enum class RankBinding { kNone, kCore, kCoreRoundRobin };

// The launcher's arguments between its own path and the program: the rank count, the binding, and (Open MPI) leave
// to run more ranks than cores. Hydra oversubscribes and binds round-robin without being told.
std::vector<std::string> LauncherArguments(MpiLauncher launcher, int ranks, RankBinding binding);

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_OPTIONS_MPI_LAUNCHER_H_
