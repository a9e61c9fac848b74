// Pipelined chain Reduce over a group.
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_REDUCE_CHAIN_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_REDUCE_CHAIN_H_

#include <cstddef>

#include "absl/status/status.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/group.h"

namespace kcoll {

// Reduce along the chain of `group`'s positions n-1 -> ... -> 1 -> 0, to position 0, in pipeline stages of
// `chunk_elements` elements. Uses scratch slot 0.
absl::Status ChainReduceOnGroup(Resources& res, const Group& group, const void* send, void* recv, size_t count,
                                DataType type, ReduceOp op, size_t chunk_elements, int tag);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_REDUCE_CHAIN_H_
