#ifndef KCOLL_COLLECTIVES_ALGORITHMS_HALVING_DOUBLING_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_HALVING_DOUBLING_H_

#include "collectives/algorithms/algorithm.h"

namespace kcoll {

// Rabenseifner's AllReduce: recursive-halving ReduceScatter + recursive-doubling AllGather, any rank count.
absl::Status HalvingDoublingAllReduce(const CollectiveArgs& args, Resources& res);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_HALVING_DOUBLING_H_
