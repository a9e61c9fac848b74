#ifndef KCOLL_COLLECTIVES_ALGORITHMS_REDUCE_SCATTER_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_REDUCE_SCATTER_H_

#include <vector>

#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/group.h"

namespace kcoll {

// ReduceScatter around `group` (see reduce_scatter.cc): `send` holds one block of `count` elements per group
// position, at block index block_index[p] for position p; the group member at position p receives block
// block_index[p] reduced over the group into `recv`. `recv` may be that block of `send` (in place). Leaves kAvg as
// a sum. Uses scratch slots 0 and 1.
absl::Status RingReduceScatterOnGroup(Resources& res, const Group& group, const std::vector<int>& block_index,
                                      const void* send, void* recv, size_t count, DataType type, ReduceOp op, int tag);

// Recursive halving over `group`, block p of `send` for position p. Uses scratch slots 0 and 1.
absl::Status HalvingReduceScatterOnGroup(Resources& res, const Group& group, const void* send, void* recv, size_t count,
                                         DataType type, ReduceOp op, int tag);

// The communicator-wide versions (ring in the topology's ring order; halving in rank order).
absl::Status RingReduceScatter(const CollectiveArgs& args, Resources& res);
absl::Status HalvingReduceScatter(const CollectiveArgs& args, Resources& res);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_REDUCE_SCATTER_H_
