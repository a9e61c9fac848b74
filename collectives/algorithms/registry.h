// Which algorithms implement which collective: the one table the Communicator consults.
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_REGISTRY_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_REGISTRY_H_

#include <vector>

#include "absl/status/statusor.h"
#include "collectives/algorithms/algorithm.h"

namespace kcoll {

// The implementation of `algorithm` for `collective`; InvalidArgument (naming both and listing the algorithms that
// do apply) when there is none. kAuto is not an implementation: resolve it first.
absl::StatusOr<AlgorithmFn> FindAlgorithm(Collective collective, Algorithm algorithm);

// The algorithms implemented for `collective`, in table order (the first is the default).
std::vector<Algorithm> AlgorithmsFor(Collective collective);
// The same without `direct`, which runs only on registered buffers (direct.h): the algorithms any buffers can take.
std::vector<Algorithm> TransferAlgorithmsFor(Collective collective);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_REGISTRY_H_
