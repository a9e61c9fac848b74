// Helpers for tests that run on every rank of MPI_COMM_WORLD.
#ifndef KCOLL_TESTS_MPI_TEST_ENV_H_
#define KCOLL_TESTS_MPI_TEST_ENV_H_

#include <mpi.h>
#include <sched.h>

#include <cstdlib>
#include <string>

namespace kcoll {
namespace testing {

inline int WorldRank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

inline int WorldSize() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// True on every rank iff `ok` is true on every rank: use before an ASSERT that must not leave some ranks waiting
// in a collective the others skipped.
inline bool AllRanks(bool ok) {
  int v = ok ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return v == 1;
}

// Whether every rank of MPI_COMM_WORLD runs on this machine (one shared-memory domain): false on the hosts of
// tools/cluster.sh, true on emulated nodes. Collective on its first call, which mpi_test_main makes right after
// MPI_Init on every rank; later calls read the answer.
inline bool AllRanksOnOneMachine() {
  static const bool one = [] {
    MPI_Comm machine = MPI_COMM_NULL;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &machine);
    int here = 1;
    MPI_Comm_size(machine, &here);
    MPI_Comm_free(&machine);
    return here == WorldSize();
  }();
  return one;
}

// Whether every rank of this run talks to every other over shared memory: the transport is shm (KCOLL_TRANSPORT unset
// or "shm"), no nodes are emulated (KCOLL_RANKS_PER_NODE unset) and every rank runs on this machine. What the one-node
// paths need: the inline exchange, the shared-memory transport's message-size check.
inline bool OneNodeOverSharedMemory() {
  const char* transport = std::getenv("KCOLL_TRANSPORT");
  const bool shm = transport == nullptr || std::string(transport) == "shm";
  return shm && std::getenv("KCOLL_RANKS_PER_NODE") == nullptr && AllRanksOnOneMachine();
}

// Whether this machine's ranks of MPI_COMM_WORLD outnumber the cores they may run on together (the union of their
// affinity masks), and so take turns on them. Collective over MPI_COMM_WORLD.
inline bool RanksTakeTurnsOnTheCores() {
  MPI_Comm machine = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &machine);
  int here = 1;
  MPI_Comm_size(machine, &here);
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof(set), &set);
  MPI_Allreduce(MPI_IN_PLACE, &set, static_cast<int>(sizeof(set)), MPI_BYTE, MPI_BOR, machine);
  MPI_Comm_free(&machine);
  return here > CPU_COUNT(&set);
}

}  // namespace testing
}  // namespace kcoll

#endif  // KCOLL_TESTS_MPI_TEST_ENV_H_
