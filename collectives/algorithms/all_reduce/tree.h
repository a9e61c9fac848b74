#ifndef KCOLL_COLLECTIVES_ALGORITHMS_ALL_REDUCE_TREE_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_ALL_REDUCE_TREE_H_

#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/group.h"

namespace kcoll {

// AllReduce over `group` by a binomial tree rooted at group position 0: reduce up, broadcast down, pipelined in
// chunks of `chunk_elems` (0: one chunk). `send` may equal `recv`. Leaves kAvg as a sum. Uses Kernels::Scratch
// slots [scratch_slot, scratch_slot + 2 * ceil(log2 n)).
absl::Status BinomialTreeAllReduceOnGroup(Resources& res, const Group& group, const void* send, void* recv,
                                          size_t count, DataType type, ReduceOp op, int tag, size_t chunk_elems,
                                          int scratch_slot);

// The communicator-wide binomial tree AllReduce, on the topology's binomial tree (graph.h: over the ring order,
// rooted at rank 0).
absl::Status TreeAllReduce(const CollectiveArgs& args, Resources& res);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_ALL_REDUCE_TREE_H_
