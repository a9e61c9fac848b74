// Where a rank stands among the ranks of a communicator that share its host (MPI_COMM_TYPE_SHARED): which GPU it
// takes, and whether a node's ranks really share one host. Emulated nodes do not change it.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_MPI_HOST_RANKS_H_
#define KCOLL_COLLECTIVES_TRANSPORT_MPI_HOST_RANKS_H_

#include <mpi.h>

namespace kcoll {

struct HostRanks {
  int rank = 0;  // this rank's position among them
  int size = 1;  // how many ranks of the communicator share this host
};

// Collective over `comm`.
HostRanks RanksOnThisHost(MPI_Comm comm);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_MPI_HOST_RANKS_H_
