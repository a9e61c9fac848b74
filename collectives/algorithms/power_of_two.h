// Folding a group of any size onto a power of two, for the recursive (halving / doubling) algorithms.
//
// With p the largest power of two <= n and r = n - p, the first 2r positions pair up: each even position 2i
// "folds out" by sending its whole contribution to position 2i+1, which reduces it into its own and takes part in
// the power-of-two algorithm as participant i; positions >= 2r take part as participants position - r. At the end
// each folding partner sends the result back to the rank it folded. This costs one extra full-buffer transfer in
// and out for r ranks (MPICH's and Open MPI's choice too), and keeps the power-of-two schedule untouched.
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_POWER_OF_TWO_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_POWER_OF_TWO_H_

#include "absl/status/status.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/group.h"

namespace kcoll {

struct PowerOfTwoFold {
  int p = 1;                // participants: the largest power of two <= n
  int extra = 0;            // n - p ranks fold out
  bool folded_out = false;  // this position sends its data to `partner` and waits for the result
  int partner = -1;         // the group position this one folds with, or -1
  int participant = -1;     // this position's index among the p participants, -1 when folded out

  // Group position of participant `v`.
  int PositionOf(int v) const { return v < extra ? 2 * v + 1 : v + extra; }
};

PowerOfTwoFold MakePowerOfTwoFold(int n, int index);

// Fold in: a folded-out rank sends `in` to its partner; the partner receives it into `scratch` (count elements) and
// reduces out = theirs (op) in. Afterwards a participant's contribution is in `out` if it has a partner, else in
// `in`. Waits for its transfers.
absl::Status FoldIn(Resources& res, const Group& group, const PowerOfTwoFold& fold, const void* in, void* out,
                    void* scratch, size_t count, DataType type, ReduceOp op, int tag);

// Fold out: the partner sends the finished `out` to the rank that folded out, which receives it into `out`.
absl::Status FoldOut(Resources& res, const Group& group, const PowerOfTwoFold& fold, void* out, size_t count,
                     DataType type, int tag);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_POWER_OF_TWO_H_
