// Recursive-doubling AllGather over a group.
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_ALL_GATHER_RECURSIVE_DOUBLING_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_ALL_GATHER_RECURSIVE_DOUBLING_H_

#include "absl/status/status.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/group.h"

namespace kcoll {

// Recursive doubling over `group`, position p's contribution at block p.
absl::Status RecursiveDoublingAllGatherOnGroup(Resources& res, const Group& group, const void* send, void* recv,
                                               size_t count, DataType type, int tag);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_ALL_GATHER_RECURSIVE_DOUBLING_H_
