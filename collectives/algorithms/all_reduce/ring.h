#ifndef KCOLL_COLLECTIVES_ALGORITHMS_ALL_REDUCE_RING_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_ALL_REDUCE_RING_H_

#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/group.h"

namespace kcoll {

// AllReduce of `count` elements around `group` (see ring.cc). `send` may equal `recv`. Leaves kAvg as a sum.
absl::Status RingAllReduceOnGroup(Resources& res, const Group& group, const void* send, void* recv, size_t count,
                                  DataType type, ReduceOp op, int tag);

// The communicator-wide ring AllReduce (ring order from the topology).
absl::Status RingAllReduce(const CollectiveArgs& args, Resources& res);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_ALL_REDUCE_RING_H_
