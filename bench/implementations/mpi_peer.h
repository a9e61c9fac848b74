// The vendor MPI's own collective for each kcoll collective, as the baseline every kcoll row is compared with:
//
//   all_reduce MPI_Allreduce       reduce_scatter MPI_Reduce_scatter_block   all_gather MPI_Allgather
//   broadcast  MPI_Bcast           reduce         MPI_Reduce                 alltoall   MPI_Alltoall
//   gather     MPI_Gather          scatter        MPI_Scatter                sendrecv   MPI_Sendrecv
//
// In place uses MPI_IN_PLACE where MPI has it, so the data sit where NCCL's in-place convention puts them, except
// MPI_Reduce_scatter_block, whose in-place result lands at the start of the buffer (Result() says so), and
// MPI_Sendrecv, whose in-place form is MPI_Sendrecv_replace. Out-of-place broadcast copies the root's send buffer
// into its receive buffer before MPI_Bcast (MPI has a single buffer), as NCCL's out-of-place broadcast delivers it.
// MPI has no average and no 16-bit float reduction: those calls are Unimplemented (the rows are skipped).
#ifndef KCOLL_BENCH_IMPLEMENTATIONS_MPI_PEER_H_
#define KCOLL_BENCH_IMPLEMENTATIONS_MPI_PEER_H_

#include <mpi.h>

#include <memory>
#include <string>

#include "bench/implementations/implementation.h"

namespace kcoll {
namespace bench {

// "MPI_Allreduce", ... for `collective`.
std::string MpiCollectiveName(Collective collective);

std::unique_ptr<Implementation> MakeMpiPeer(Collective collective, MPI_Comm comm);

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_IMPLEMENTATIONS_MPI_PEER_H_
