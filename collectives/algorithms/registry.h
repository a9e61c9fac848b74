// The schedule that runs each (collective, algorithm) pair of base/algorithm_list.h: the one table the Communicator
// consults. Which algorithms serve which collective is base's (AlgorithmsFor in base/names.h).
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_REGISTRY_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_REGISTRY_H_

#include "absl/status/statusor.h"
#include "base/names.h"
#include "collectives/algorithms/algorithm.h"

namespace kcoll {

// The implementation of `algorithm` for `collective`; InvalidArgument (naming both and listing the algorithms that
// do apply) when there is none. kAuto is not an implementation: resolve it first.
absl::StatusOr<AlgorithmFn> FindAlgorithm(Collective collective, Algorithm algorithm);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_REGISTRY_H_
