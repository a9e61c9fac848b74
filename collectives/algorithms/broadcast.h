#ifndef KCOLL_COLLECTIVES_ALGORITHMS_BROADCAST_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_BROADCAST_H_

#include "base/graph.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/group.h"

namespace kcoll {

// Broadcast down `tree` (see broadcast.cc): its root sends `bytes` bytes from `root_src`; every other rank of the
// tree receives them into `buffer` from its parent and forwards them to its children. The root's `buffer` is not
// touched. Any rooted spanning tree works (binomial, one of the double binary trees, a tree over a subgroup).
absl::Status BroadcastDownTree(Resources& res, const Tree& tree, const void* root_src, void* buffer, size_t bytes,
                               int tag);
// Broadcast along the chain of `group`'s positions 0 -> 1 -> ... -> n-1, from position 0, in pipeline stages of
// `chunk_bytes` bytes.
absl::Status ChainBroadcastOnGroup(Resources& res, const Group& group, const void* root_src, void* buffer, size_t bytes,
                                   size_t chunk_bytes, int tag);

// The communicator-wide versions: the topology's binomial tree rooted at the root; the chain along the ring order
// starting at the root.
absl::Status TreeBroadcast(const CollectiveArgs& args, Resources& res);
absl::Status ChainBroadcast(const CollectiveArgs& args, Resources& res);
absl::Status LinearBroadcast(const CollectiveArgs& args, Resources& res);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_BROADCAST_H_
