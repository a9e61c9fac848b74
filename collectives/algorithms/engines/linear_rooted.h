// The frame of every linear rooted schedule (Broadcast, Reduce, Gather, Scatter): a rank other than the root makes
// its one transfer with the root; the root posts all of its n-1 transfers at once. Each schedule writes only the
// root's part.
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_LINEAR_ROOTED_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_LINEAR_ROOTED_H_

#include <cstddef>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "collectives/algorithms/algorithm.h"

namespace kcoll {

// Which way a rank's one block travels between it and the root.
enum class LeafBlock { kSentToRoot, kReceivedFromRoot };

// Nothing to move: OK at once. Off the root: the rank's `count`-element block goes from `send` to the root, or
// comes from it into `recv`, and is waited for. On the root: `root_part(block_bytes)` posts its transfers and makes
// its local copies or reductions, then every transfer still pending is waited for.
absl::Status LinearRooted(const CollectiveArgs& args, Resources& res, LeafBlock direction,
                          absl::FunctionRef<absl::Status(size_t block_bytes)> root_part);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_LINEAR_ROOTED_H_
