// Broadcast down any rooted tree, for the schedules that broadcast over part of the communicator.
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_BROADCAST_TREE_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_BROADCAST_TREE_H_

#include <cstddef>

#include "absl/status/status.h"
#include "base/graph.h"
#include "collectives/algorithms/algorithm.h"

namespace kcoll {

// Broadcast down `tree` (see tree.cc): its root sends `bytes` bytes from `root_src`; every other rank of the
// tree receives them into `buffer` from its parent and forwards them to its children. The root's `buffer` is not
// touched. Any rooted spanning tree works (binomial, one of the double binary trees, a tree over a subgroup).
absl::Status BroadcastDownTree(Resources& res, const Tree& tree, const void* root_src, void* buffer, size_t bytes,
                               int tag);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_BROADCAST_TREE_H_
