// How the Communicator picks an algorithm when the call says kAuto: $KCOLL_ALGO first, then kcoll's default for
// the collective and size.
#ifndef KCOLL_CHOICE_DEFAULT_ALGORITHM_H_
#define KCOLL_CHOICE_DEFAULT_ALGORITHM_H_

#include <cstddef>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/names.h"
#include "base/topology.h"

namespace kcoll {

// Parses a KCOLL_ALGO value for `collective`: either one algorithm name ("ring"), used for every collective it is
// implemented for, or per-collective assignments ("all_reduce=ring,broadcast=tree"). nullopt: the value says
// nothing about this collective. InvalidArgument names an unknown collective or algorithm.
absl::StatusOr<std::optional<Algorithm>> ParseAlgorithmOverride(absl::string_view text, Collective collective);

// ParseAlgorithmOverride of $KCOLL_ALGO (nullopt when unset).
absl::StatusOr<std::optional<Algorithm>> AlgorithmFromEnv(Collective collective);

// The size-threshold choice `auto` falls back to when the cost model can price none of a collective's registered
// algorithms (choice/auto_choice.h), with the thresholds in algorithm_choice.cc. `bytes` is count * elem with
// count as CollectiveArgs defines it. AllReduce: ring. ReduceScatter / AllGather: halving_doubling / recursive_doubling
// up to 1 MiB in all (count * elem * nranks), ring above. Broadcast / Reduce: tree up to 64 KiB, chain above. Gather /
// Scatter: tree up to 4 KiB per rank, linear above. AllToAll, SendRecv: pairwise. Barrier: recursive_doubling
// (dissemination).
absl::StatusOr<Algorithm> DefaultAlgorithm(Collective collective, size_t bytes, const Topology& topology);

}  // namespace kcoll

#endif  // KCOLL_CHOICE_DEFAULT_ALGORITHM_H_
