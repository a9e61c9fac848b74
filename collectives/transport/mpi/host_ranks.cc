#include "collectives/transport/mpi/host_ranks.h"

namespace kcoll {

HostRanks RanksOnThisHost(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm host = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host);
  HostRanks out;
  MPI_Comm_rank(host, &out.rank);
  MPI_Comm_size(host, &out.size);
  MPI_Comm_free(&host);
  return out;
}

}  // namespace kcoll
