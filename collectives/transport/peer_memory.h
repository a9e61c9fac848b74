// Buffers that every rank of a node can address directly: memory registered with Communicator::Allocate, in a
// segment each rank of the node maps. What the zero-copy schedules (collectives/algorithms/all_reduce/direct.cc and its
// siblings) run on instead of transfers: a rank reads its peers' buffers in place, and barriers order the reads after
// the writes.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_PEER_MEMORY_H_
#define KCOLL_COLLECTIVES_TRANSPORT_PEER_MEMORY_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "collectives/transport/transport.h"

namespace kcoll {

class PeerMemory {
 public:
  // One call's buffers of every rank of the node, as addresses in this process; indexed by rank within the node.
  struct Buffers {
    std::vector<const unsigned char*> send;
    std::vector<unsigned char*> recv;
  };

  virtual ~PeerMemory() = default;
  virtual int rank() const = 0;  // within the node
  virtual int size() const = 0;

  // The first step of a call that may run zero-copy, collective over the node: publishes where this rank's send and
  // recv buffers are and waits until every rank of the node has published its own. True, with `peers` filled, when
  // every rank's buffers lie in registered memory; false on every rank alike when some rank's do not (then no rank
  // may touch another's buffers, and the call runs through transfers). InvalidArgument on every rank when the ranks
  // called with different arguments (their `call.signature`s differ); DeadlineExceeded when a rank does not come.
  virtual absl::StatusOr<bool> Exchange(const Transport::CallInfo& call, const void* send, size_t send_bytes,
                                        const void* recv, size_t recv_bytes, Buffers* peers) = 0;
  // Returns once every rank of the node has reached the same barrier of the same call.
  virtual absl::Status Barrier() = 0;
  // Point-to-point order within a call, for pipelined schedules: Publish says this rank has finished `step` of the
  // call (and everything it wrote before); WaitFor returns once `peer` has published `step` (or a later step) of
  // the same call. Steps start at 1 in every call.
  virtual void Publish(uint32_t step) = 0;
  virtual absl::Status WaitFor(int peer, uint32_t step) = 0;
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_PEER_MEMORY_H_
