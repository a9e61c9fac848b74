// Linear ReduceScatterV (kLinear): every rank sends block j of its input straight to rank j, all at once, and folds
// the n copies of its own block in rank order: recv = copy 0 op copy 1, then recv = recv op copy k for k = 2..n-1 (its
// own copy when k is this rank), the order numerics=deterministic defines (the deterministic schedules take this one
// for float and double). One round: the fewest steps, for small buffers and few ranks; each rank receives n-1 copies
// of its block and reduces them all (the ring spreads the reductions). Within a node the copies travel in 64 KiB
// pieces, each folded over all n copies while it is in cache (engines/owner_fold.h). In place (recv is the rank's own
// block of send), the folds before its own copy's turn go to scratch.
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/owner_fold.h"

namespace kcoll {

absl::Status LinearReduceScatterV(const CollectiveArgs& args, Resources& res) {
  const OwnerBlocks b(res, args.send, args.recv_counts, args.type);
  KCOLL_RETURN_IF_ERROR(SendBlocksToOwners(res, b));
  if (!FoldsOnArrival(res, b)) return FoldOwnBlockAfterReceiving(args.op, args.type, res, b, args.recv);
  KCOLL_RETURN_IF_ERROR(FoldOwnBlockOnArrival(args.op, args.type, res, b, args.recv));
  return res.transport.WaitAll();
}

}  // namespace kcoll
