#include "collectives/transport/mpi/host_ranks.h"

#include "absl/strings/str_cat.h"

namespace kcoll {

MPI_Comm HostCommunicator(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm host = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host);
  return host;
}

HostRanks RanksOnThisHost(MPI_Comm comm) {
  MPI_Comm host = HostCommunicator(comm);
  HostRanks out;
  MPI_Comm_rank(host, &out.rank);
  MPI_Comm_size(host, &out.size);
  MPI_Comm_free(&host);
  return out;
}

absl::Status CheckNodeOnOneHost(MPI_Comm node, absl::string_view transport, absl::string_view remedy) {
  int size = 0;
  MPI_Comm_size(node, &size);
  const int local_size = RanksOnThisHost(node).size;
  if (local_size == size) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat("transport '", transport, "': the ", size,
                                                    " ranks of a node span several hosts (", local_size,
                                                    " share this one); ", remedy));
}

}  // namespace kcoll
