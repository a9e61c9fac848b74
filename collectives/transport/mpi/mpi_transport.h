// Transport over MPI point-to-point (MPI_Isend/MPI_Irecv on MPI_BYTE), on a duplicate of the application's
// communicator so that kcoll's messages never match the application's. Buffers must be host memory unless the MPI
// is CUDA-aware. Messages larger than MPI's int count are split into pieces transparently.
//
// Tags. A message's MPI tag carries, besides the schedule's own tag (a channel, a direction: 0..255), the call's
// signature (collective, count, type, op, root, algorithm: Transport::CallInfo) and the call's sequence number
// modulo 16. Ranks that disagree on a call's arguments therefore never match each other's messages: their waits
// time out (below) instead of reducing mismatched data or truncating a message, and the timeout names the peer
// whose pending message belongs to a different call.
//
// Waiting. With no timeout (the default) a wait is MPI_Waitall. With a timeout, a wait polls its requests
// (collectives/transport/mpi/mpi_wait.h: as cheap as MPI_Waitall while the wait is short, yielding and then sleeping
// between polls once it is long, so ranks sharing cores with a stalled peer leave it the CPU). A wait fails with
// DeadlineExceeded once no transfer of it has completed for the timeout; the error names the call, the algorithm,
// the step (the n-th wait of the call), the time since the call began and the peers whose transfers are pending.
//
// After a failure, Abandon() cancels the pending receives (waiting for each cancellation to take effect, so no
// late message lands in the caller's buffer; if MPI cannot withdraw one, the job is aborted with a message) and
// releases the pending sends. The duplicated MPI communicator of a transport that abandoned transfers is never
// freed: late messages of its peers then stay with it, and cannot reach a communicator created later (MPI reuses
// the context ids of freed communicators, and a stray message on a reused one can stall its matching). The same
// holds for a communicator that Quiesce finds holding a message nobody received.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_MPI_MPI_TRANSPORT_H_
#define KCOLL_COLLECTIVES_TRANSPORT_MPI_MPI_TRANSPORT_H_

#include <mpi.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "collectives/transport/call_tracking.h"
#include "collectives/transport/mpi/mpi_wait.h"

namespace kcoll {

class MpiTransport final : public CallTrackingTransport {
 public:
  // Schedule tags passed to Send/Recv must be in [0, kMaxTag).
  static constexpr int kMaxTag = 256;

  // Duplicates `comm` (collective over `comm`). The application keeps ownership of `comm`. With a `timeout`, the
  // duplication is bounded by it: a rank that never calls, or a network that cannot carry the ranks' agreement (a
  // host's link down), fails Create with DeadlineExceeded instead of hanging (`timeout_source` names the setting).
  static absl::StatusOr<std::unique_ptr<MpiTransport>> Create(MPI_Comm comm,
                                                              absl::Duration timeout = absl::InfiniteDuration(),
                                                              absl::string_view timeout_source = "");
  ~MpiTransport() override;

  absl::string_view name() const override { return "mpi"; }
  bool CanReach(MemoryKind memory) const override;

  absl::StatusOr<Request> Send(int peer, const void* data, size_t bytes, int tag) override;
  absl::StatusOr<Request> Recv(int peer, void* data, size_t bytes, int tag) override;
  absl::Status Wait(Request request) override;
  absl::Status WaitAll() override;
  absl::StatusOr<bool> Progress() override;
  void set_companion(Transport* companion) override { companion_ = companion; }
  void Abandon() override;
  absl::Status Quiesce(absl::Duration timeout) override;

  // The duplicated communicator kcoll talks on (for the collectives kcoll delegates to MPI, e.g. barriers in tests).
  MPI_Comm comm() const { return comm_; }

  // Whether device buffers may be handed to MPI directly (a CUDA-aware MPI; see mpi_cuda_support.h). Off by default.
  void set_device_memory(bool enabled) { device_memory_ = enabled; }

  // Largest piece one MPI call carries; larger transfers become several requests. Settable for tests.
  void set_max_piece_bytes(size_t bytes) { max_piece_bytes_ = bytes; }

 private:
  // What a posted MPI request moves, to name it when it does not complete.
  struct Posted {
    bool send;
    int peer;
    size_t bytes;
  };

  MpiTransport(MPI_Comm comm, int rank, int size, int signature_bits)
      : CallTrackingTransport(rank, size), comm_(comm), signature_bits_(signature_bits) {}
  absl::StatusOr<Request> Post(bool send, int peer, void* data, size_t bytes, int tag);
  int MpiTag(int tag) const;
  // Completes requests_[first, first + count): one step of the call.
  absl::Status Complete(int first, int count);
  absl::Status TimedOut(int first, int count) const;
  // Why a peer's pending message did not match: a message of another call waiting from it, if any.
  std::string DiagnosePeer(int peer) const;

  MPI_Comm comm_;
  int signature_bits_;  // tag bits left for the call signature under MPI_TAG_UB
  size_t max_piece_bytes_ = size_t{1} << 30;
  bool device_memory_ = false;
  bool abandoned_ = false;
  Transport* companion_ = nullptr;

  // Every MPI request posted since the last WaitAll; a Request names a contiguous range of them.
  std::vector<MPI_Request> requests_;
  std::vector<Posted> posted_;               // parallel to requests_
  std::vector<std::pair<int, int>> ranges_;  // Request id -> [first, first + count) in requests_
  std::vector<int> completed_;               // MPI_Testsome's output
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_MPI_MPI_TRANSPORT_H_
