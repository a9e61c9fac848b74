// What halving-doubling's two halves share: the blocks a window covers, and the all-gather by recursive doubling that
// ends both halving_doubling and ordered_halving_doubling.
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_DOUBLING_GATHER_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_DOUBLING_GATHER_H_

#include <functional>

#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/partition.h"

namespace kcoll {

// Elements [offset, offset + count) of blocks [lo, hi) of `count` elements cut into p blocks.
inline Block BlocksRange(size_t count, int p, int lo, int hi) {
  const size_t begin = BlockOf(count, p, lo).offset;
  const size_t end = hi == p ? count : BlockOf(count, p, hi).offset;
  return Block{begin, end - begin};
}

// Recursive doubling over p = 2^k participants, d = p/2, ..., 1: participant v holds blocks [lo, hi) of `out` (one
// block, where recursive halving left it) and v XOR d the adjacent window of the same width, so each step trades
// windows with that partner (rank_of(v XOR d)) straight into `out`, doubling the window until it covers the buffer.
absl::Status GatherByRecursiveDoubling(Resources& res, char* out, size_t count, size_t elem, int p, int v, int lo,
                                       int hi, const std::function<int(int)>& rank_of, int tag);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_DOUBLING_GATHER_H_
