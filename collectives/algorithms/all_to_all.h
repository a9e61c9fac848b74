#ifndef KCOLL_COLLECTIVES_ALGORITHMS_ALL_TO_ALL_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_ALL_TO_ALL_H_

#include "collectives/algorithms/algorithm.h"

namespace kcoll {

// Pairwise-exchange AllToAll (see all_to_all.cc).
absl::Status PairwiseAllToAll(const CollectiveArgs& args, Resources& res);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_ALL_TO_ALL_H_
