// Linear ReduceScatterV (kLinear), owner computes in rank order: the input is cut into n blocks, block j owned by
// rank j; every rank sends block j of its input straight to rank j, all at once, and rank j folds the n copies of its
// block in rank order: recv = copy 0 op copy 1, then recv = recv op copy k for k = 2..n-1 (its own copy, read where it
// lies, when k is this rank), the order numerics=deterministic defines (the deterministic schedules take this one for
// float and double). One round: the fewest steps, for small buffers and few ranks; each rank receives n-1 copies of
// its block and reduces them all (the ring spreads the reductions).
//
// Between two ranks whose transport reduces as data arrives (shared memory), blocks travel in pieces of
// kOwnerPieceBytes, and the owner folds one piece over all n copies before the next: the fold so far stays in the
// core's cache between its n-1 steps, so memory sees each copy read once and the result written once, as one n-way
// pass would. Elsewhere a block is one message, received into scratch and folded after every receive is in (a
// stream-ordered transport runs the receives posted between two waits as one group, so a rank must not wait on one
// peer while the others' sends still need its later receives: NCCL). engines/owner_fold.h has both folds.
//
// In place (recv is the rank's own block of send), the folds before the owner's own turn go to scratch, and that turn
// reads its own copy and the fold so far into the output.
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/owner_fold.h"

namespace kcoll {

absl::Status LinearReduceScatterV(const CollectiveArgs& args, Resources& res) {
  const OwnerBlocks b(res, args.send, args.recv_counts, args.type);
  KCOLL_RETURN_IF_ERROR(SendPiecesToOwners(res, b, 0, ~size_t{0}));
  if (!FoldsOnArrival(res, b)) return FoldOwnBlockAfterReceiving(args.op, args.type, res, b, args.recv);
  OnArrivalFold fold(args.op, args.type, res, b, args.recv);
  KCOLL_RETURN_IF_ERROR(fold.Init());
  for (size_t p = 0; p < fold.pieces(); ++p) KCOLL_RETURN_IF_ERROR(fold.Fold(p));
  return res.transport.WaitAll();
}

}  // namespace kcoll
