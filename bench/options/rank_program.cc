#include "bench/options/rank_program.h"

#include <mpi.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <cstdio>
#include <memory>

#include "bench/options/launcher.h"
#include "collectives/kernels/backend.h"

namespace kcoll {
namespace bench {

int ReportBadOptions(const std::string& program, const absl::Status& status) {
  if (!StartedByMpiLauncher() || RankFromEnvironment() == 0) {
    std::fprintf(stderr, "%s: %s\n", program.c_str(), std::string(status.message()).c_str());
  }
  return 2;
}

int LaunchRanks(int ranks, const std::vector<std::string>& args, const std::string& program, const RankLaunch& launch) {
  BenchOptions plan;
  plan.ranks = ranks;
  plan.exec = launch.exec;
  return LaunchSelf(plan, args, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)), program, launch.forced_env);
}

std::vector<size_t> SweepSizes(const SweepOptions& o) {
  std::vector<size_t> sizes;
  for (size_t b = o.min_bytes; b <= o.max_bytes; b *= o.factor) sizes.push_back(b);
  return sizes;
}

int RunOnRanks(int argc, char** argv, const std::string& program, bool thread_multiple,
               const CommunicatorOptions& communicator, const std::function<int(Communicator&)>& run) {
  if (thread_multiple) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  } else {
    MPI_Init(&argc, &argv);
  }
  InitializeKokkosQuietly(argc, argv);
  int code = 1;
  absl::StatusOr<std::unique_ptr<Communicator>> comm = Communicator::Create(MPI_COMM_WORLD, communicator);
  if (comm.ok()) {
    code = run(**comm);
    (*comm)->Finalize().IgnoreError();
  } else {
    std::fprintf(stderr, "%s: %s\n", program.c_str(), comm.status().ToString().c_str());
  }
  comm = nullptr;
  Kokkos::finalize();
  MPI_Finalize();
  return code;
}

}  // namespace bench
}  // namespace kcoll
