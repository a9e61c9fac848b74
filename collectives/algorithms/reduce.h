#ifndef KCOLL_COLLECTIVES_ALGORITHMS_REDUCE_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_REDUCE_H_

#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/group.h"

namespace kcoll {

// Reduce over `group` to position 0 (see reduce.cc): every position contributes `send`; position 0 receives the
// reduction in `recv` (which may equal its `send`). Other positions' `recv` is not touched. Leaves kAvg as a sum.
// Uses scratch slots 0 and 1.
absl::Status BinomialReduceOnGroup(Resources& res, const Group& group, const void* send, void* recv, size_t count,
                                   DataType type, ReduceOp op, int tag);
// The same along the chain n-1 -> ... -> 1 -> 0, in pipeline stages of `chunk_elements` elements. Uses scratch
// slot 0.
absl::Status ChainReduceOnGroup(Resources& res, const Group& group, const void* send, void* recv, size_t count,
                                DataType type, ReduceOp op, size_t chunk_elements, int tag);

// The communicator-wide versions, over the topology's ring order rotated to start at the root.
absl::Status TreeReduce(const CollectiveArgs& args, Resources& res);
absl::Status ChainReduce(const CollectiveArgs& args, Resources& res);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_REDUCE_H_
