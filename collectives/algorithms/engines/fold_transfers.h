// The two transfers that fold a group onto a power of two (power_of_two_fold.h) for the AllReduce schedules that
// need one: before, each rank that sits out hands its whole contribution to its partner, which reduces it into its
// own; after, the partner hands the finished result back. One extra full-buffer transfer each way for the first
// 2 * rem ranks, and the power-of-two schedule in between runs untouched (MPICH's and Open MPI's choice too).
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_FOLD_TRANSFERS_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_FOLD_TRANSFERS_H_

#include <cstddef>

#include "absl/status/status.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/group.h"
#include "collectives/algorithms/engines/power_of_two_fold.h"

namespace kcoll {

// The group position paired with `position` by the fold, or -1 if it is not in a pair.
inline int FoldPartner(const VirtualPowerOfTwo& fold, int position) {
  return position < 2 * fold.rem ? (position ^ 1) : -1;
}

// Fold in, for this rank (group.index): a rank that sits out sends `in` to its partner; the partner receives it
// into `scratch` (count elements) and reduces out = theirs (op) in. Afterwards a participant's contribution is in
// `out` if it has a partner, else in `in`. Waits for its transfers.
absl::Status FoldIn(Resources& res, const Group& group, const VirtualPowerOfTwo& fold, const void* in, void* out,
                    void* scratch, size_t count, DataType type, ReduceOp op, int tag);

// Fold out: the partner sends the finished `out` to the rank that sat out, which receives it into `out`.
absl::Status FoldOut(Resources& res, const Group& group, const VirtualPowerOfTwo& fold, void* out, size_t count,
                     DataType type, int tag);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_FOLD_TRANSFERS_H_
