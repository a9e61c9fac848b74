// What one group of CUDA IPC transfers becomes on the stream: a pure function, so its order (and the absence of
// deadlock between ranks) is tested on machines without a GPU (tests/cuda_ipc_schedule_test.cc simulates it).
//
// Channels. Every ordered pair of ranks of a node has a channel: a ring of `slots` slots of `slot_bytes` in the
// receiver's device memory, which the sender reaches through a CUDA IPC handle, and two counters in host memory that
// both GPUs map: `filled` (chunks the sender has written into the ring) and `consumed` (chunks the receiver has copied
// out). A message is cut into chunks of at most `slot_bytes`; an empty message is one empty chunk, so that it still
// synchronises its two ranks, as NCCL's empty transfers do. The channel's k-th chunk (counting from 0 over the
// channel's whole life) goes into slot k % slots:
//
//   sender's stream:    wait consumed >= k + 1 - slots;  copy chunk -> peer's slot;  write filled = k + 1
//   receiver's stream:  wait filled >= k + 1;             copy slot -> buffer;       write consumed = k + 1
//
// Counters are 32 bits compared cyclically (cuStreamWaitValue32's default), so they may wrap.
//
// Order within a group. The messages on one channel travel one after the other in posting order, whatever the groups
// they are posted in, so both ends agree on which chunk is which. Across channels, a group is run in rounds: round j
// is every channel's j-th chunk of the group, sends before receives. When every rank posts matching groups (the rule
// the NCCL transport states: the n-th message from a to b has the same size on both ends, and a rank never waits on a
// group whose partner transfers the peer posts only after depending on this rank's later groups), each wait depends
// only on work its peer runs earlier in the same order (a send of round j on the receive of round j - slots, a
// receive of round j on the send of round j), so no two streams wait for each other.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_CUDA_IPC_IPC_SCHEDULE_H_
#define KCOLL_COLLECTIVES_TRANSPORT_CUDA_IPC_IPC_SCHEDULE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace kcoll {
namespace cuda_ipc {

struct ChannelShape {
  int slots = 4;
  size_t slot_bytes = size_t{1} << 20;
};

// One transfer of a group as posted.
struct PostedTransfer {
  bool send = false;
  int peer = 0;
  unsigned char* data = nullptr;
  size_t bytes = 0;
};

// What a rank has moved over its channels with each peer so far: the next chunk's index on each.
// Counts are 64 bits here; the counters hold their low 32 bits.
struct ChannelPositions {
  uint64_t sent = 0;      // chunks written to the peer
  uint64_t received = 0;  // chunks copied out from the peer
};

enum class CommandKind {
  kWaitConsumed,    // wait until the peer has consumed `value` chunks of this rank's channel to it
  kCopyToPeer,      // copy `bytes` from `data` into slot `slot` of this rank's channel in the peer's memory
  kSignalFilled,    // write `value` into the filled counter of this rank's channel to the peer
  kWaitFilled,      // wait until the peer has filled `value` chunks of its channel to this rank
  kCopyFromSlot,    // copy `bytes` from slot `slot` of the peer's channel to this rank into `data`
  kSignalConsumed,  // write `value` into the consumed counter of the peer's channel to this rank
};

struct Command {
  CommandKind kind;
  int peer = 0;
  uint32_t value = 0;  // the counter value waited for or written
  int slot = 0;
  unsigned char* data = nullptr;
  size_t bytes = 0;
  int transfer = 0;  // the index of the PostedTransfer it belongs to
};

// The commands of one group, in stream order, advancing `positions` (one per peer, this rank's included and unused).
// InvalidArgument naming the transfer for a peer out of range, a null buffer of a non-empty transfer or a shape
// without slots.
absl::StatusOr<std::vector<Command>> PlanGroup(const std::vector<PostedTransfer>& transfers, const ChannelShape& shape,
                                               std::vector<ChannelPositions>* positions);

// The chunks a message of `bytes` takes (an empty one takes one).
size_t ChunksOf(size_t bytes, size_t slot_bytes);

// The low 32 bits of a count: what a counter holds.
inline uint32_t CounterValue(uint64_t count) { return static_cast<uint32_t>(count); }

// Whether counter value `have` satisfies a wait for `want`: the cyclic comparison the stream makes.
inline bool CounterReached(uint32_t have, uint32_t want) { return static_cast<int32_t>(have - want) >= 0; }

std::string CommandName(CommandKind kind);  // "wait consumed", ...

}  // namespace cuda_ipc
}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_CUDA_IPC_IPC_SCHEDULE_H_
