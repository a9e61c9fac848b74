// How the Communicator picks an algorithm when the call says kAuto: $KCOLL_ALGO first, then kcoll's default for
// the collective and size.
#ifndef KCOLL_COLLECTIVES_ALGORITHM_CHOICE_H_
#define KCOLL_COLLECTIVES_ALGORITHM_CHOICE_H_

#include <cstddef>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "collectives/topology/topology.h"
#include "models/names.h"

namespace kcoll {

// Parses a KCOLL_ALGO value for `collective`: either one algorithm name ("ring"), used for every collective it is
// implemented for, or per-collective assignments ("all_reduce=ring,broadcast=tree"). nullopt: the value says
// nothing about this collective. InvalidArgument names an unknown collective or algorithm.
absl::StatusOr<std::optional<Algorithm>> ParseAlgorithmOverride(absl::string_view text, Collective collective);

// ParseAlgorithmOverride of $KCOLL_ALGO (nullopt when unset).
absl::StatusOr<std::optional<Algorithm>> AlgorithmFromEnv(Collective collective);

// kcoll's choice when nothing overrides it.
absl::StatusOr<Algorithm> DefaultAlgorithm(Collective collective, size_t bytes, const Topology& topology);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHM_CHOICE_H_
