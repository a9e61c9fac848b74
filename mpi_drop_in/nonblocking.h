// Nonblocking collectives on kcoll as MPI requests. A call kcoll takes starts kcoll's nonblocking call (which its
// communicator's progress thread runs while the application computes) and returns a generalized request
// (MPI_Grequest_start), which every MPI completion function accepts beside point-to-point requests: MPI_Wait,
// MPI_Test, MPI_Waitall, MPI_Waitany, MPI_Testall, ... . The library hooks the MPI's progress loop (Open MPI's
// opal_progress_register; MPICH polls requests made with MPIX_Grequest_start), which those functions run while they
// wait: there it tests kcoll's requests, finishes the completed ones (unpacking a non-contiguous receive buffer) and
// completes their MPI requests; an error comes back as the request's error code, with kcoll's message as its
// MPI_Error_string.
//
// A nonblocking call takes kcoll only where this holds on every rank alike, else MPI's own nonblocking collective runs
// it: the communicator already has its kcoll communicator (made by a blocking collective: making one would wait for
// the other ranks), whose nonblocking calls progress on a thread that makes no MPI call (every rank on one node over
// shared memory), and the MPI lets the library hook its progress loop.
#ifndef KCOLL_MPI_DROP_IN_NONBLOCKING_H_
#define KCOLL_MPI_DROP_IN_NONBLOCKING_H_

#include <mpi.h>

#include <functional>

#include "absl/status/status.h"
#include "collectives/communicator.h"
#include "collectives/request.h"
#include "mpi_drop_in/call_stats.h"

namespace kcoll::drop_in {

// kcoll's communicator for a nonblocking call of `function` on `comm`, or null (the call counted as forwarded, with
// the reason) when MPI's own nonblocking collective runs it.
Communicator* TakeNonblocking(MpiFunction function, MPI_Comm comm);

// Makes `request`, kcoll's call of `function` on `c` just started, the MPI request *mpi_request. `finish` runs once
// the call completed without error, before the MPI request completes (what a blocking call does after its kcoll call:
// unpacking into the caller's buffers); it holds whatever the call uses until then. Counts the call as run on kcoll.
int StartMpiRequest(MpiFunction function, Communicator* c, Request request, std::function<absl::Status()> finish,
                    MPI_Request* mpi_request);

// Completes every request of `c` still in flight, waiting for them: before `c` is finalised.
void CompleteRequestsOf(Communicator* c);

}  // namespace kcoll::drop_in

#endif  // KCOLL_MPI_DROP_IN_NONBLOCKING_H_
