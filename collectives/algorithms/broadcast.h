#ifndef KCOLL_COLLECTIVES_ALGORITHMS_BROADCAST_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_BROADCAST_H_

#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/group.h"

namespace kcoll {

// Broadcast over `group` from position 0 (see broadcast.cc): position 0 sends `bytes` bytes from `root_src`; every
// other position receives them into `buffer`. The root's `buffer` is not touched.
absl::Status BinomialBroadcastOnGroup(Resources& res, const Group& group, const void* root_src, void* buffer,
                                      size_t bytes, int tag);
// The same along the chain 0 -> 1 -> ... -> n-1, in pipeline stages of `chunk_bytes` bytes.
absl::Status ChainBroadcastOnGroup(Resources& res, const Group& group, const void* root_src, void* buffer, size_t bytes,
                                   size_t chunk_bytes, int tag);

// Pipeline stage of the chain when AlgorithmOptions::chunk_bytes is 0.
inline constexpr size_t kDefaultChainChunkBytes = size_t{64} << 10;

// The communicator-wide versions, over the topology's ring order rotated to start at the root.
absl::Status TreeBroadcast(const CollectiveArgs& args, Resources& res);
absl::Status ChainBroadcast(const CollectiveArgs& args, Resources& res);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_BROADCAST_H_
