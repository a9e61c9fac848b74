// Ring ReduceScatter over a group, for the schedules that reduce within part of the communicator.
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_REDUCE_SCATTER_RING_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_REDUCE_SCATTER_RING_H_

#include <vector>

#include "absl/status/status.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/group.h"

namespace kcoll {

// ReduceScatter around `group` (see ring.cc): `send` holds one block of `count` elements per group
// position, at block index block_index[p] for position p; the group member at position p receives block
// block_index[p] reduced over the group into `recv`. `recv` may be that block of `send` (in place). Leaves kAvg as
// a sum. Uses scratch slots 0 and 1.
absl::Status RingReduceScatterOnGroup(Resources& res, const Group& group, const std::vector<int>& block_index,
                                      const void* send, void* recv, size_t count, DataType type, ReduceOp op, int tag);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_REDUCE_SCATTER_RING_H_
