#ifndef KCOLL_COLLECTIVES_ALGORITHMS_RECURSIVE_DOUBLING_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_RECURSIVE_DOUBLING_H_

#include "collectives/algorithms/algorithm.h"

namespace kcoll {

// AllReduce by log2(p) full-buffer pairwise exchanges, any rank count: the small-message algorithm.
absl::Status RecursiveDoublingAllReduce(const CollectiveArgs& args, Resources& res);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_RECURSIVE_DOUBLING_H_
