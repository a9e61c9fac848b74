#ifndef KCOLL_COLLECTIVES_ALGORITHMS_REDUCE_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_REDUCE_H_

#include "base/graph.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/group.h"

namespace kcoll {

// Reduce up `tree` (see reduce.cc): every rank of the tree contributes `send`; the tree's root receives the
// reduction in `recv` (which may equal its `send`). Other ranks' `recv` is not touched. Leaves kAvg as a sum. Any
// rooted spanning tree works. Uses scratch slots 0 and 1.
absl::Status ReduceUpTree(Resources& res, const Tree& tree, const void* send, void* recv, size_t count, DataType type,
                          ReduceOp op, int tag);
// Reduce along the chain of `group`'s positions n-1 -> ... -> 1 -> 0, to position 0, in pipeline stages of
// `chunk_elements` elements. Uses scratch slot 0.
absl::Status ChainReduceOnGroup(Resources& res, const Group& group, const void* send, void* recv, size_t count,
                                DataType type, ReduceOp op, size_t chunk_elements, int tag);

// The communicator-wide versions: the topology's binomial tree rooted at the root; the chain along the ring order
// ending at the root.
absl::Status TreeReduce(const CollectiveArgs& args, Resources& res);
absl::Status ChainReduce(const CollectiveArgs& args, Resources& res);
absl::Status LinearReduce(const CollectiveArgs& args, Resources& res);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_REDUCE_H_
