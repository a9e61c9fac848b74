#include "collectives/transport/shm/spin_policy.h"

#include <sched.h>

#include <algorithm>
#include <thread>

#include "collectives/transport/mpi/host_ranks.h"

namespace kcoll {
namespace shm {
int CoresAvailable(MPI_Comm comm) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) {
    for (unsigned c = 0; c < std::max(1u, std::thread::hardware_concurrency()) && c < CPU_SETSIZE; ++c) {
      CPU_SET(c, &set);
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &set, static_cast<int>(sizeof(set)), MPI_BYTE, MPI_BOR, comm);
  return std::max(1, CPU_COUNT(&set));
}

int SpinPollsFor(int ranks, int cores, int requested) {
  if (requested > 0) return requested;
  return ranks <= cores ? 1 << 14 : 1;
}

int ChooseSpinPolls(MPI_Comm comm, int requested) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  const int cores = CoresAvailable(comm);  // collective: called on every rank whatever `requested` is
  return SpinPollsFor(size, cores, requested);
}

int ChooseHostSpinPolls(MPI_Comm comm, int requested) {
  MPI_Comm host = HostCommunicator(comm);
  if (host == MPI_COMM_NULL) return ChooseSpinPolls(comm, requested);
  const int polls = ChooseSpinPolls(host, requested);
  MPI_Comm_free(&host);
  return polls;
}

}  // namespace shm
}  // namespace kcoll
