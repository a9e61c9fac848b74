#ifndef KCOLL_COLLECTIVES_ALGORITHMS_ALL_REDUCE_LINEAR_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_ALL_REDUCE_LINEAR_H_

#include "collectives/algorithms/algorithm.h"

namespace kcoll {

// The owner-computes AllReduce in rank order (see linear.cc), which ordered_halving_doubling.cc runs on the rank
// counts and types it does not serve.
absl::Status LinearAllReduce(const CollectiveArgs& args, Resources& res);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_ALL_REDUCE_LINEAR_H_
