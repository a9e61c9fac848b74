// Waiting for MPI requests under a timeout, without taking the CPU from ranks that share it.
//
// With no timeout this is MPI_Waitall. With one, the requests are polled (each poll runs MPI's progress engine, as
// MPI_Waitall does): first 256 back-to-back MPI_Testall polls (as cheap as MPI_Waitall's own loop, so a short wait
// costs what a plain one does), then MPI_Testsome polls that track completions: back to back while transfers keep
// completing, yielding the core once none has completed for 1 ms, and 100 us apart after 100 ms, so that a rank
// waiting for a stalled peer costs its neighbours almost nothing. The timeout counts from the last completion: a
// long collective that keeps moving never times out, a stalled one does after `timeout`. A rank that was not running
// for a while (stopped, descheduled) polls for a moment after it resumes before it may time out: what its peers sent
// meanwhile counts.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_MPI_MPI_WAIT_H_
#define KCOLL_COLLECTIVES_TRANSPORT_MPI_MPI_WAIT_H_

#include <mpi.h>

#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace kcoll {

// True once every request of requests[0, count) has completed (completed ones become MPI_REQUEST_NULL); false when
// `timeout` passed with none completing (the rest stay pending). An MPI error is Internal, naming the call.
// `scratch` is reused between calls to avoid allocating.
// With `also_progress`, it runs between polls (MPI_Waitall is then never used) and what it moves (true) counts as
// progress.
absl::StatusOr<bool> WaitForRequests(MPI_Request* requests, int count, absl::Duration timeout,
                                     std::vector<int>* scratch,
                                     const std::function<absl::StatusOr<bool>()>& also_progress = nullptr);

// MPI_Ibcast of `count` elements of `type` at `buffer` from `root` over `comm`, waited for as WaitForRequests waits:
// true once it completed on this rank; false when `timeout` passed first. The broadcast then stays pending and MPI may
// still write into `buffer` (a broadcast cannot be cancelled), so the caller must leave the buffer allocated. Internal,
// naming the call, when MPI_Ibcast fails.
absl::StatusOr<bool> BroadcastWithin(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
                                     absl::Duration timeout, std::vector<int>* scratch);

// The barrier a transport's Quiesce waits at as its communicator finalises: OK once every rank of `comm` reached it;
// DeadlineExceeded ("not every rank finalized within ...") when `timeout` passed without them (the barrier then stays
// pending, so `comm` must be kept, not freed); Internal for an MPI error.
absl::Status FinalizeBarrier(MPI_Comm comm, absl::Duration timeout, std::vector<int>* scratch);

// The message of an MPI error code, e.g. "MPI_ERR_RANK: invalid rank".
std::string MpiErrorString(int code);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_MPI_MPI_WAIT_H_
