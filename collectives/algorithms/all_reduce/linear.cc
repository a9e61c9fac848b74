// Linear AllReduce (kLinear), owner computes in rank order: the elements are cut into n blocks, block j owned by rank
// j; every rank sends block j of its input to rank j, rank j folds the n copies in rank order (x0 op x1, then op x2,
// ..., the order numerics=deterministic defines) and sends the folded block to every other rank. The traffic of a
// reduce-scatter and an all-gather, in two rounds of n-1 messages a rank, and every element combined in the same
// order whatever n, the chunking or the transport. Not priced: numerics=deterministic takes it for large float and
// double AllReduces over shared memory (communicator_numerics.cc), and a caller may name it.
//
// Where every peer's transport reduces as data arrives (shared memory), the two rounds run as one pipeline of pieces
// (kOwnerPieceBytes, engines/owner_fold.h): at step p the owner folds piece p of its block over all n copies and at
// once sends the folded piece to every rank, while the piece is still in its core's cache, so the folded block is
// written once and never read back from memory. The input's pieces travel kOwnerWindow steps ahead of the folds, so
// each pair's channel carries the two rounds interleaved; a rank posts the receive of folded piece p after its own
// fold of piece p, by which time the messages ahead of that piece in the channel are matched. In place, folded piece
// p of block j lands on this rank's input piece p of block j only after its owner has folded it, which needs that
// input piece already out of this rank's buffer (copied into a slot, or read by the owner).
//
// Elsewhere the owner receives every copy, folds, and the folded blocks travel as a second round (a stream-ordered
// transport gets two batches). Each pair sends the same messages either way, so ranks that fold on arrival and ranks
// that do not (one that owns no element) agree on every message.
#include "collectives/algorithms/all_reduce/linear.h"

#include <algorithm>
#include <vector>

#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/owner_fold.h"
#include "collectives/algorithms/engines/partition.h"

namespace kcoll {
namespace {

// How many pieces of the input travel ahead of the owners' folds.
constexpr size_t kOwnerWindow = 4;
constexpr int kFoldedTag = 1;

std::vector<size_t> EvenBlocks(size_t count, int n) {
  std::vector<size_t> counts;
  for (int j = 0; j < n; ++j) counts.push_back(BlockOf(count, n, j).count);
  return counts;
}

// Posts piece p of the folded blocks, as each pair's pieces cut them: the receive of every other owner's into its
// place in `recv`, and the send of this rank's (at its place in `recv`) to every other rank.
absl::Status PostFoldedPiece(Resources& res, const OwnerBlocks& b, char* recv, size_t p) {
  for (int s = 1; s < b.n; ++s) {
    const int peer = Mod(b.r + s, b.n);
    const size_t piece = b.PieceWith(res, peer), at = p * piece;
    if (p < b.PiecesWith(res, peer, peer)) {
      KCOLL_RETURN_IF_ERROR(res.transport
                                .Recv(peer, recv + (b.offset[peer] + at) * b.elem,
                                      std::min(piece, b.Count(peer) - at) * b.elem, kFoldedTag)
                                .status());
    }
    if (p < b.PiecesWith(res, peer, b.r)) {
      KCOLL_RETURN_IF_ERROR(
          res.transport
              .Send(peer, recv + (b.offset[b.r] + at) * b.elem, std::min(piece, b.Mine() - at) * b.elem, kFoldedTag)
              .status());
    }
  }
  return absl::OkStatus();
}

// The most pieces any folded block takes with any peer: the steps of the pipeline.
size_t MostPieces(const Resources& res, const OwnerBlocks& b) {
  size_t most = 0;
  for (int s = 1; s < b.n; ++s) {
    const int peer = Mod(b.r + s, b.n);
    most = std::max({most, b.PiecesWith(res, peer, peer), b.PiecesWith(res, peer, b.r)});
  }
  return most;
}

}  // namespace

absl::Status LinearAllReduce(const CollectiveArgs& args, Resources& res) {
  const std::vector<size_t> counts = EvenBlocks(args.count, res.topology.nranks);
  const OwnerBlocks b(res, args.send, counts.data(), args.type);
  char* recv = static_cast<char*>(args.recv);
  if (b.n == 1) {
    return args.send == args.recv ? absl::OkStatus() : res.kernels.Copy(recv, args.send, args.count * b.elem);
  }
  char* folded = recv + b.offset[b.r] * b.elem;
  const size_t steps = MostPieces(res, b);
  if (!FoldsOnArrival(res, b)) {
    KCOLL_RETURN_IF_ERROR(SendPiecesToOwners(res, b, 0, ~size_t{0}));
    KCOLL_RETURN_IF_ERROR(FoldOwnBlockAfterReceiving(args.op, args.type, res, b, folded));
    for (size_t p = 0; p < steps; ++p) KCOLL_RETURN_IF_ERROR(PostFoldedPiece(res, b, recv, p));
    return res.transport.WaitAll();
  }
  KCOLL_RETURN_IF_ERROR(SendPiecesToOwners(res, b, 0, kOwnerWindow));
  OnArrivalFold fold(args.op, args.type, res, b, folded);
  KCOLL_RETURN_IF_ERROR(fold.Init());
  for (size_t p = 0; p < steps; ++p) {
    KCOLL_RETURN_IF_ERROR(SendPiecesToOwners(res, b, p + kOwnerWindow, p + kOwnerWindow + 1));
    if (p < fold.pieces()) KCOLL_RETURN_IF_ERROR(fold.Fold(p));
    KCOLL_RETURN_IF_ERROR(PostFoldedPiece(res, b, recv, p));
  }
  return res.transport.WaitAll();
}

}  // namespace kcoll
