// Point-to-point transfers of byte ranges between the ranks of a communicator: the only thing algorithms need from
// a network. The interface is shaped so that one algorithm step reads the same over every implementation:
//
//   auto recv = transport.Recv(left, scratch, bytes, tag);
//   auto send = transport.Send(right, chunk, bytes, tag);
//   transport.WaitAll();          // MPI: wait for completion. NCCL: close the group; the work is on the stream.
//   kernels.Reduce(...);          // MPI: runs after the data arrived. NCCL: ordered after it on the same stream.
//
// Posted transfers may be completed in any order; a buffer passed to Send/Recv must stay untouched until the
// request is waited for. Transfers between the same pair with the same tag are matched in posting order; `tag`
// separates concurrent streams (channels) between the same pair.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_TRANSPORT_H_
#define KCOLL_COLLECTIVES_TRANSPORT_TRANSPORT_H_

#include <cstddef>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "collectives/kernels/kernels.h"

namespace kcoll {

class Transport {
 public:
  // Identifies a posted transfer until it is waited for (or until WaitAll).
  struct Request {
    int id = -1;
  };

  virtual ~Transport() = default;

  virtual absl::string_view name() const = 0;  // "mpi", "nccl"
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Whether buffers of this kind may be handed to Send/Recv directly.
  virtual bool CanReach(MemoryKind memory) const = 0;

  virtual absl::StatusOr<Request> Send(int peer, const void* data, size_t bytes, int tag = 0) = 0;
  virtual absl::StatusOr<Request> Recv(int peer, void* data, size_t bytes, int tag = 0) = 0;
  // Completes one posted transfer.
  virtual absl::Status Wait(Request request) = 0;
  // Completes every transfer posted so far.
  virtual absl::Status WaitAll() = 0;
  // Returns once every transfer posted so far, and the kernels ordered with them, has finished: the end of a
  // collective. The same as WaitAll for transports whose WaitAll already completes the data (MPI); a stream-ordered
  // transport (NCCL) waits for its stream here, and only here. Decorators must forward it to the transport they wrap.
  virtual absl::Status Synchronize() { return WaitAll(); }
  // Whether Wait and WaitAll only close a batch of transfers that a device stream then runs in order, between the
  // kernels (NCCL), instead of completing transfers on the host (MPI). A batch then runs as a unit after every earlier
  // batch, so a schedule must not post a receive ahead of the step whose sends it belongs with (the peer's matching
  // send may come after a wait on this rank's later batches, and the streams would wait for each other), and a
  // buffer a send reads is safe from later transfers without waiting for that send.
  virtual bool StreamOrdered() const { return false; }
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_TRANSPORT_H_
