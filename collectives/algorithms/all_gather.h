#ifndef KCOLL_COLLECTIVES_ALGORITHMS_ALL_GATHER_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_ALL_GATHER_H_

#include <vector>

#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/group.h"

namespace kcoll {

// AllGather around `group` (see all_gather.cc): the member at position p contributes `count` elements (`send`),
// which land at block block_index[p] of every member's `recv`. `send` may be that block of `recv` (in place).
absl::Status RingAllGatherOnGroup(Resources& res, const Group& group, const std::vector<int>& block_index,
                                  const void* send, void* recv, size_t count, DataType type, int tag);

// Recursive doubling over `group`, position p's contribution at block p.
absl::Status RecursiveDoublingAllGatherOnGroup(Resources& res, const Group& group, const void* send, void* recv,
                                               size_t count, DataType type, int tag);

// The communicator-wide versions (ring in the topology's ring order; recursive doubling in rank order).
absl::Status RingAllGather(const CollectiveArgs& args, Resources& res);
absl::Status RecursiveDoublingAllGather(const CollectiveArgs& args, Resources& res);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_ALL_GATHER_H_
