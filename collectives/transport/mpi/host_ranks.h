// Where a rank stands among the ranks of a communicator that share its host (MPI_COMM_TYPE_SHARED): which GPU it
// takes, and whether a node's ranks really share one host. Emulated nodes do not change it.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_MPI_HOST_RANKS_H_
#define KCOLL_COLLECTIVES_TRANSPORT_MPI_HOST_RANKS_H_

#include <mpi.h>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace kcoll {

struct HostRanks {
  int rank = 0;  // this rank's position among them
  int size = 1;  // how many ranks of the communicator share this host
};

// Collective over `comm`.
HostRanks RanksOnThisHost(MPI_Comm comm);

// The ranks of `comm` that share this rank's host (MPI_COMM_TYPE_SHARED), in `comm`'s order; the caller frees it.
// Collective over `comm`.
MPI_Comm HostCommunicator(MPI_Comm comm);

// Whether every rank of `node` (one node's ranks) is on this rank's host, for a transport that reaches no further:
// FailedPrecondition "transport '<transport>': the N ranks of a node span several hosts (L share this one); <remedy>"
// otherwise. Collective over `node`.
absl::Status CheckNodeOnOneHost(MPI_Comm node, absl::string_view transport, absl::string_view remedy);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_MPI_HOST_RANKS_H_
