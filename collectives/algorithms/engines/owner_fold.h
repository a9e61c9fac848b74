// Owner computes in rank order, the step the linear ReduceScatterV and the linear AllReduce share: the input is cut
// into n blocks, block j owned by rank j; every rank sends block j of its input to rank j, and rank j folds the n
// copies of its block in rank order: copy 0 op copy 1, then that op copy k for k = 2..n-1 (its own copy read where it
// lies). Between two ranks whose transport reduces as data arrives (shared memory), blocks travel in pieces of
// kOwnerPieceBytes and the owner folds one piece over all n copies before the next, so the fold so far stays in the
// core's cache; elsewhere a block is one message, received into scratch and folded after every receive is in.
// Whether a pair sends pieces is the same both ways, so senders and receivers agree on every message.
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_OWNER_FOLD_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_OWNER_FOLD_H_

#include <cstddef>
#include <vector>

#include "absl/status/status.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/receive_reduce.h"

namespace kcoll {

inline constexpr size_t kOwnerPieceBytes = size_t{64} << 10;

// The blocks of an owner-computes schedule, as `counts` (one per rank) cut `input`.
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
  // How many messages block j takes between this rank and `peer`.
  size_t PiecesWith(const Resources& res, int peer, int j) const;
};

// How many messages a block of `count` elements takes in pieces of `piece` elements (an empty block: one).
inline size_t PiecesOf(size_t count, size_t piece) { return count == 0 ? 1 : (count - 1) / piece + 1; }

// Posts the sends of pieces [first, end) of every other rank's block of the input to that rank, piece by piece, each
// piece index to every owner before the next. Tag 0.
absl::Status SendPiecesToOwners(Resources& res, const OwnerBlocks& b, size_t first, size_t end);

// Whether this rank folds on arrival: every peer fuses and it owns elements.
bool FoldsOnArrival(const Resources& res, const OwnerBlocks& b);

// Folds this rank's block in rank order, piece by piece as the copies arrive: one owner's fold, after the sends of
// every block to its owner are posted (at least up to the piece it folds).
class OnArrivalFold {
 public:
  // `out` is this rank's own block of the input (in place) or apart from it.
  OnArrivalFold(ReduceOp op, DataType type, Resources& res, const OwnerBlocks& b, void* out);
  absl::Status Init();
  size_t piece() const { return piece_; }
  size_t pieces() const { return PiecesOf(b_.Mine(), piece_); }
  // Folds piece p (elements [p * piece(), ...)) of the block into `out`.
  absl::Status Fold(size_t p);

 private:
  ReduceOp op_;
  DataType type_;
  Resources& res_;
  const OwnerBlocks& b_;
  char* out_;
  ReceiveReduce rr_;
  size_t piece_;
  char* early_ = nullptr;  // in place, the folds before this rank's own turn
};

// Receives every copy of this rank's block into scratch, waits for every transfer posted (the sends included), then
// folds the copies in rank order into `out`.
absl::Status FoldOwnBlockAfterReceiving(ReduceOp op, DataType type, Resources& res, const OwnerBlocks& b, void* out);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_OWNER_FOLD_H_
