// Reading another process's memory on the same host (process_vm_readv): the single copy of the shm transport, and of
// the benchmark's peer_copy row.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_SHM_PROCESS_MEMORY_H_
#define KCOLL_COLLECTIVES_TRANSPORT_SHM_PROCESS_MEMORY_H_

#include <mpi.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kcoll {

// Copies `bytes` from `address` in process `pid` into `into` (as many kernel calls as it takes); false, errno set, if
// the kernel refuses.
bool ReadFromProcess(pid_t pid, uint64_t address, unsigned char* into, size_t bytes);

// Collective over `comm`, whose rank r runs in process pids[r]: whether every rank can read every rank's memory. Each
// rank publishes a word of its own and reads everyone's; the answer is the same on every rank.
bool CanReadEveryRanksMemory(MPI_Comm comm, const std::vector<pid_t>& pids);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_SHM_PROCESS_MEMORY_H_
