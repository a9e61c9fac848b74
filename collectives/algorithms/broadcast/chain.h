// Pipelined chain Broadcast over a group.
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_BROADCAST_CHAIN_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_BROADCAST_CHAIN_H_

#include <cstddef>

#include "absl/status/status.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/group.h"

namespace kcoll {

// Broadcast along the chain of `group`'s positions 0 -> 1 -> ... -> n-1, from position 0, in pipeline stages of
// `chunk_bytes` bytes.
absl::Status ChainBroadcastOnGroup(Resources& res, const Group& group, const void* root_src, void* buffer, size_t bytes,
                                   size_t chunk_bytes, int tag);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_BROADCAST_CHAIN_H_
