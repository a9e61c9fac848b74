// Recursive-halving ReduceScatter over a group.
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_REDUCE_SCATTER_HALVING_DOUBLING_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_REDUCE_SCATTER_HALVING_DOUBLING_H_

#include "absl/status/status.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/group.h"

namespace kcoll {

// Recursive halving over `group`, block p of `send` for position p. Uses scratch slots 0 and 1.
absl::Status HalvingReduceScatterOnGroup(Resources& res, const Group& group, const void* send, void* recv, size_t count,
                                         DataType type, ReduceOp op, int tag);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_REDUCE_SCATTER_HALVING_DOUBLING_H_
