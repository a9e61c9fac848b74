// Transport over NCCL point-to-point (ncclSend/ncclRecv) on device memory, ordered on one CUDA stream: the stream
// of the Kokkos Cuda instance the kernels launch on, so a transfer follows the kernel that produced its data and
// the next kernel follows the transfer, with no host synchronisation in between.
//
// Groups. Everything posted between two waits is one ncclGroupStart/ncclGroupEnd group: Send and Recv open the group
// (if none is open) and add to it; Wait or WaitAll closes it, which launches the group on the stream and returns
// without waiting for the data. A ring step (recv from the left, send to the right, wait) is therefore one group,
// and its sends and receives progress together as NCCL requires. Work enqueued on the stream after the wait (a
// reduction kernel) runs after the group's transfers.
//
// Completion. Synchronize() is the only host synchronisation: it waits for the stream and returns the collective's
// outcome. The Communicator calls it once at the end of every collective, so a collective returns with its result
// in place, as over MPI.
//
// Matching. NCCL has no tags: between two ranks, the n-th send posted by one is matched with the n-th receive posted
// by the other, and the two must have the same size. `tag` is accepted and ignored. kcoll's algorithms satisfy this
// because both ends of every pair post in the same schedule order: channels (the tags of a multi-channel algorithm)
// are posted in channel order on every rank, so channel c's send meets channel c's receive. A further rule follows
// from stream ordering: a group runs as a unit, so a rank must not wait on a group whose partner transfers the peer
// posts only after a wait that depends on this rank's later groups (symmetric, step-by-step schedules never do).
// Transfers of zero bytes are real, synchronising messages (NCCL >= 2.12.10).
//
// Errors. Every NCCL and CUDA call is checked; a call of a non-blocking communicator that returns ncclInProgress is
// polled with ncclCommGetAsyncError. Synchronize polls the asynchronous error state while it waits. When no step
// completes for `timeout`, or NCCL reports an asynchronous error, the communicator is aborted (ncclCommAbort, which
// works on a blocking communicator too as long as no NCCL call is blocked in it: kcoll waits on events, never in
// NCCL), the error names the rank, the collective and the step that stalled, and every later call fails with it.
// Creation of a blocking communicator (ncclCommInitRankConfig, and the first connections, which the communicator
// makes at creation: connect_peers.h) waits without limit, as the MPI bootstrap before it does.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_NCCL_NCCL_TRANSPORT_H_
#define KCOLL_COLLECTIVES_TRANSPORT_NCCL_NCCL_TRANSPORT_H_

#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "collectives/transport/call_tracking.h"
#include "collectives/transport/timeout.h"

namespace kcoll {

struct NcclTransportOptions {
  int device = 0;                                // this rank's CUDA device
  cudaStream_t stream = nullptr;                 // the kernels' stream (nullptr: the legacy default stream)
  absl::Duration timeout = kDefaultNcclTimeout;  // longest time without progress before aborting
  // A blocking NCCL communicator (the default, as nccl-tests and PyTorch create theirs): ncclGroupEnd enqueues and
  // returns. A non-blocking one bounds creation by `timeout` too, but NCCL starts a thread for every ncclGroupEnd on
  // it, and kcoll ends a group per step.
  bool nonblocking = false;
};

class NcclTransport final : public CallTrackingTransport {
 public:
  // Collective over `bootstrap` (only used during creation; see CreateNcclComm).
  static absl::StatusOr<std::unique_ptr<NcclTransport>> Create(MPI_Comm bootstrap, const NcclTransportOptions& options);
  // Takes ownership of an initialised communicator.
  static absl::StatusOr<std::unique_ptr<NcclTransport>> Adopt(ncclComm_t comm, const NcclTransportOptions& options);
  ~NcclTransport() override;

  absl::string_view name() const override { return "nccl"; }
  bool CanReach(MemoryKind memory) const override { return memory == MemoryKind::kDevice; }

  absl::StatusOr<Request> Send(int peer, const void* data, size_t bytes, int tag) override;
  absl::StatusOr<Request> Recv(int peer, void* data, size_t bytes, int tag) override;
  absl::Status Wait(Request request) override;
  absl::Status WaitAll() override;
  absl::Status Synchronize() override;
  bool StreamOrdered() const override { return true; }
  // A mark is an event recorded on the stream after everything posted; Reached queries the events in stream order.
  absl::StatusOr<uint64_t> MarkPosted() override;
  absl::StatusOr<bool> Reached(uint64_t mark) override;

  ncclComm_t comm() const { return comm_; }
  cudaStream_t stream() const { return stream_; }
  // Collectives completed by Synchronize so far, and groups launched in the current one.
  int64_t collectives() const { return collective_; }
  int64_t steps() const { return step_; }

 private:
  // One send or receive of a group, kept to describe a stalled step.
  struct Op {
    bool send;
    int peer;
    size_t bytes;
  };
  // A launched group and the event recorded after it on the stream.
  struct Step {
    int64_t index;
    cudaEvent_t done;
    std::vector<Op> ops;
    uint64_t mark = 0;  // MarkPosted's, for its event; 0 for a group's
  };

  NcclTransport(ncclComm_t comm, int rank, int size, const NcclTransportOptions& options);
  absl::StatusOr<Request> Post(bool send, int peer, void* data, size_t bytes);
  absl::Status CloseGroup();
  absl::StatusOr<cudaEvent_t> TakeEvent();
  // Launches what is posted and records an event after everything on the stream, with `mark` (0: none).
  absl::Status RecordTail(uint64_t mark);
  // Aborts the communicator and remembers `error` (prefixed with this rank) as the answer to every later call.
  absl::Status Fail(const absl::Status& error);
  std::string Describe(int64_t step, const std::vector<Op>& ops) const;

  ncclComm_t comm_;
  int device_;
  cudaStream_t stream_;
  absl::Status broken_;  // set once the communicator was aborted

  bool group_open_ = false;
  std::vector<Op> open_ops_;
  int next_request_ = 0;
  int64_t collective_ = 0;
  int64_t step_ = 0;
  std::deque<Step> launched_;
  std::vector<cudaEvent_t> free_events_;
  uint64_t last_mark_ = 0;     // the latest MarkPosted returned
  uint64_t reached_mark_ = 0;  // every mark up to this one has been reached
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_NCCL_NCCL_TRANSPORT_H_
