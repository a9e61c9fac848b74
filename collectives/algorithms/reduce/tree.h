// Reduce up any rooted tree, for the schedules that reduce over part of the communicator.
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_REDUCE_TREE_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_REDUCE_TREE_H_

#include <cstddef>

#include "absl/status/status.h"
#include "base/graph.h"
#include "collectives/algorithms/algorithm.h"

namespace kcoll {

// Reduce up `tree` (see tree.cc): every rank of the tree contributes `send`; the tree's root receives the
// reduction in `recv` (which may equal its `send`). Other ranks' `recv` is not touched. Leaves kAvg as a sum. Any
// rooted spanning tree works. Uses scratch slots 0 and 1.
absl::Status ReduceUpTree(Resources& res, const Tree& tree, const void* send, void* recv, size_t count, DataType type,
                          ReduceOp op, int tag);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_REDUCE_TREE_H_
