// Owner computes, in rank order: the input is cut into n blocks, block j owned by rank j; every rank sends block j of
// its input to rank j, and rank j folds the n copies of its block in rank order, ((copy 0 op copy 1) op copy 2) ...,
// its own copy read where it lies. The linear ReduceScatterV runs it; it is the order numerics=deterministic defines.
//
// Between two ranks whose transport reduces as data arrives (shared memory), blocks travel in pieces of
// kOwnerPieceBytes, and the owner folds one piece over all n copies before the next: the fold so far stays in the
// core's cache between its n-1 steps, so memory sees each copy read once and the result written once, as one n-way
// pass would. Elsewhere a block is one message, received into scratch and folded after every receive is in (a
// stream-ordered transport runs the receives posted between two waits as one group, so a rank must not wait on one
// peer while the others' sends still need its later receives: NCCL). Whether a pair sends pieces is the same both
// ways, so senders and receivers agree on every message.
//
// In place (the fold's output is the owner's own block of the input), the folds before the owner's own turn go to
// scratch, and that turn reads its own copy and the fold so far into the output.
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_OWNER_FOLD_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_OWNER_FOLD_H_

#include <cstddef>
#include <vector>

#include "absl/status/status.h"
#include "collectives/algorithms/algorithm.h"

namespace kcoll {

inline constexpr size_t kOwnerPieceBytes = size_t{64} << 10;

struct OwnerBlocks {
  OwnerBlocks(const Resources& res, const void* input, const size_t* counts, DataType type);
  int n, r;
  size_t elem;
  std::vector<size_t> offset;  // element offset of each rank's block in the input (n + 1 entries)
  const char* in;
  size_t Count(int j) const { return offset[j + 1] - offset[j]; }
  size_t Mine() const { return Count(r); }
  const char* Block(int j) const { return in + offset[j] * elem; }
  const char* Own() const { return Block(r); }
  // How a block travels between this rank and `peer`: in pieces of this many elements (one message, perhaps empty,
  // where the pair does not fuse).
  size_t PieceWith(const Resources& res, int peer) const;
};

// Posts the send of every other rank's block of the input to that rank, piece by piece, the first piece of every
// block first (every owner can start folding).
absl::Status SendBlocksToOwners(Resources& res, const OwnerBlocks& b);

// Whether this rank folds on arrival: every peer fuses and it owns elements.
bool FoldsOnArrival(const Resources& res, const OwnerBlocks& b);

// After posting the sends of every block to its owner: folds this rank's block in rank order into `out` (this rank's
// own block of the input, or apart from it), piece by piece as the copies arrive.
absl::Status FoldOwnBlockOnArrival(ReduceOp op, DataType type, Resources& res, const OwnerBlocks& b, void* out);
// Receives every copy of this rank's block into scratch, waits for every transfer posted (the sends included), then
// folds the copies in rank order into `out`.
absl::Status FoldOwnBlockAfterReceiving(ReduceOp op, DataType type, Resources& res, const OwnerBlocks& b, void* out);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_OWNER_FOLD_H_
