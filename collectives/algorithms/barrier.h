#ifndef KCOLL_COLLECTIVES_ALGORITHMS_BARRIER_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_BARRIER_H_

#include "collectives/algorithms/algorithm.h"

namespace kcoll {

// Barriers (see barrier.cc): dissemination (registered as kRecursiveDoubling), binomial tree, linear.
absl::Status DisseminationBarrier(const CollectiveArgs& args, Resources& res);
absl::Status TreeBarrier(const CollectiveArgs& args, Resources& res);
absl::Status LinearBarrier(const CollectiveArgs& args, Resources& res);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_BARRIER_H_
