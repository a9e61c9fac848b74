#ifndef KCOLL_COLLECTIVES_ALGORITHMS_GATHER_SCATTER_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_GATHER_SCATTER_H_

#include "collectives/algorithms/algorithm.h"

namespace kcoll {

// Gather and Scatter, linear and binomial tree (see gather_scatter.cc).
absl::Status LinearGather(const CollectiveArgs& args, Resources& res);
absl::Status TreeGather(const CollectiveArgs& args, Resources& res);
absl::Status LinearScatter(const CollectiveArgs& args, Resources& res);
absl::Status TreeScatter(const CollectiveArgs& args, Resources& res);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_GATHER_SCATTER_H_
