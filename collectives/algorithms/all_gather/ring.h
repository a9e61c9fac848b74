// Ring AllGather over a group, for the schedules that gather within part of the communicator.
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_ALL_GATHER_RING_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_ALL_GATHER_RING_H_

#include <vector>

#include "absl/status/status.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/group.h"

namespace kcoll {

// AllGather around `group` (see ring.cc): the member at position p contributes `count` elements (`send`),
// which land at block block_index[p] of every member's `recv`. `send` may be that block of `recv` (in place).
absl::Status RingAllGatherOnGroup(Resources& res, const Group& group, const std::vector<int>& block_index,
                                  const void* send, void* recv, size_t count, DataType type, int tag);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_ALL_GATHER_RING_H_
