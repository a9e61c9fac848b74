#include "bench/options/mpi_launcher.h"

#include <mpi.h>

#include "base/env.h"

namespace kcoll {
namespace bench {

MpiLauncher BuiltMpiLauncher() {
#if defined(MPICH_VERSION)
  return MpiLauncher::kHydra;
#else
  return MpiLauncher::kOpenMpi;
#endif
}

bool StartedByMpiLauncher() {
  return GetEnv("OMPI_COMM_WORLD_SIZE") != nullptr || GetEnv("PMIX_RANK") != nullptr || GetEnv("PMI_RANK") != nullptr ||
         GetEnv("PMI_SIZE") != nullptr;
}

const char* MpiLauncherName(MpiLauncher launcher) {
  return launcher == MpiLauncher::kHydra ? "MPICH Hydra" : "Open MPI mpirun";
}

std::vector<std::string> LauncherArguments(MpiLauncher launcher, int ranks, RankBinding binding) {
  std::vector<std::string> args = {"-np", std::to_string(ranks)};
  if (launcher == MpiLauncher::kHydra) {
    args.insert(args.end(), {"-bind-to", binding == RankBinding::kNone ? "none" : "core"});
    return args;
  }
  const char* open_mpi_binding = binding == RankBinding::kNone             ? "none"
                                 : binding == RankBinding::kCoreRoundRobin ? "core:overload-allowed"
                                                                           : "core";
  args.insert(args.end(), {"--oversubscribe", "--bind-to", open_mpi_binding});
  return args;
}

}  // namespace bench
}  // namespace kcoll
