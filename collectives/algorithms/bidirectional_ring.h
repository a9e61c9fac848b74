#ifndef KCOLL_COLLECTIVES_ALGORITHMS_BIDIRECTIONAL_RING_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_BIDIRECTIONAL_RING_H_

#include "collectives/algorithms/algorithm.h"

namespace kcoll {

// Half the buffer around the ring clockwise, the other half counter-clockwise, at the same time.
absl::Status BidirectionalRingAllReduce(const CollectiveArgs& args, Resources& res);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_BIDIRECTIONAL_RING_H_
