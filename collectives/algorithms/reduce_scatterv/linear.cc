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
// peer while the others' sends still need its later receives: NCCL). Whether a pair sends pieces is the same both
// ways, so senders and receivers agree on every message.
//
// In place (recv is the rank's own block of send), the folds before the owner's own turn go to scratch, and that turn
// reads its own copy and the fold so far into the output.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/partition.h"
#include "collectives/algorithms/engines/receive_reduce.h"

namespace kcoll {

namespace {

constexpr size_t kOwnerPieceBytes = size_t{64} << 10;

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

// How many messages a block of `count` elements takes in pieces of `piece` elements (an empty block: one).
size_t PiecesOf(size_t count, size_t piece) { return count == 0 ? 1 : (count - 1) / piece + 1; }

// Posts the receive of `count` elements into `data` from `peer`, in the pieces PieceWith(peer) gives. Tag 0.
absl::Status RecvInPieces(Resources& res, const OwnerBlocks& b, int peer, void* data, size_t count) {
  const size_t piece = b.PieceWith(res, peer);
  for (size_t p = 0; p < PiecesOf(count, piece); ++p) {
    const size_t first = p * piece;
    KCOLL_RETURN_IF_ERROR(
        res.transport
            .Recv(peer, static_cast<char*>(data) + first * b.elem, std::min(piece, count - first) * b.elem, /*tag=*/0)
            .status());
  }
  return absl::OkStatus();
}

OwnerBlocks::OwnerBlocks(const Resources& res, const void* input, const size_t* counts, DataType type)
    : n(res.topology.nranks),
      r(res.topology.rank),
      elem(DataTypeSize(type)),
      offset(static_cast<size_t>(n) + 1, 0),
      in(static_cast<const char*>(input)) {
  for (int j = 0; j < n; ++j) offset[j + 1] = offset[j] + counts[j];
}

size_t OwnerBlocks::PieceWith(const Resources& res, int peer) const {
  return res.transport.FusesReduce(peer) ? std::max<size_t>(kOwnerPieceBytes / elem, 1) : ~size_t{0};
}

// Posts the send of every other rank's block of the input to that rank, piece by piece, the first piece of every
// block first (every owner can start folding).
absl::Status SendBlocksToOwners(Resources& res, const OwnerBlocks& b) {
  size_t most = 0;
  for (int s = 1; s < b.n; ++s) {
    const int to = Mod(b.r + s, b.n);
    most = std::max(most, PiecesOf(b.Count(to), b.PieceWith(res, to)));
  }
  for (size_t p = 0; p < most; ++p) {
    for (int s = 1; s < b.n; ++s) {
      const int to = Mod(b.r + s, b.n);
      const size_t piece = b.PieceWith(res, to);
      if (p >= PiecesOf(b.Count(to), piece)) continue;
      const size_t first = p * piece;
      KCOLL_RETURN_IF_ERROR(
          res.transport.Send(to, b.Block(to) + first * b.elem, std::min(piece, b.Count(to) - first) * b.elem, 0)
              .status());
    }
  }
  return absl::OkStatus();
}

// Whether this rank folds on arrival: every peer fuses and it owns elements.
bool FoldsOnArrival(const Resources& res, const OwnerBlocks& b) {
  bool fused = b.n >= 2 && b.Mine() > 0;
  for (int k = 0; k < b.n && fused; ++k) fused = k == b.r || res.transport.FusesReduce(k);
  return fused;
}

// After posting the sends of every block to its owner: folds this rank's block in rank order into `out` (this rank's
// own block of the input, or apart from it), piece by piece as the copies arrive.
absl::Status FoldOwnBlockOnArrival(ReduceOp op, DataType type, Resources& res, const OwnerBlocks& b, void* out) {
  ReceiveReduce rr(res, op, type);
  const size_t piece = b.PieceWith(res, Mod(b.r + 1, b.n)), mine = b.Mine();
  char* early = nullptr;  // in place, the folds before this rank's own turn
  if (out == b.Own() && b.r != 0) {
    KCOLL_ASSIGN_OR_RETURN(void* scratch, res.kernels.Scratch(0, std::min(piece, mine) * b.elem));
    early = static_cast<char*>(scratch);
  }
  for (size_t first = 0; first < mine; first += piece) {
    const size_t count = std::min(piece, mine - first);
    char* result = static_cast<char*>(out) + first * b.elem;
    const char* own = b.Own() + first * b.elem;
    auto into = [&](int k) { return early != nullptr && k < b.r ? early : result; };  // where step k's fold goes
    // The fold so far: rank 0's copy (this rank's own, read where it is, or received), then each step's fold.
    const void* so_far = own;
    if (b.r != 0) {
      KCOLL_ASSIGN_OR_RETURN(Transport::Request copy0, res.transport.Recv(0, into(0), count * b.elem, 0));
      KCOLL_RETURN_IF_ERROR(res.transport.Wait(copy0));
      so_far = into(0);
    }
    for (int k = 1; k < b.n; ++k) {
      if (k == b.r) {
        KCOLL_RETURN_IF_ERROR(res.kernels.Reduce(op, type, into(k), so_far, own, count));
      } else {
        KCOLL_ASSIGN_OR_RETURN(Transport::Request request, rr.Post(k, into(k), so_far, nullptr, count, 0));
        KCOLL_RETURN_IF_ERROR(res.transport.Wait(request));
        KCOLL_RETURN_IF_ERROR(rr.Complete(k, into(k), so_far, nullptr, count));
      }
      so_far = into(k);
    }
  }
  return absl::OkStatus();
}

// Receives every copy of this rank's block into scratch, waits for every transfer posted (the sends included), then
// folds the copies in rank order into `out`.
absl::Status FoldOwnBlockAfterReceiving(ReduceOp op, DataType type, Resources& res, const OwnerBlocks& b, void* out) {
  const size_t mine = b.Mine(), bytes = mine * b.elem;
  KCOLL_ASSIGN_OR_RETURN(void* copies_ptr, res.kernels.Scratch(0, std::max<size_t>(b.n * bytes, 1)));
  char* copies = static_cast<char*>(copies_ptr);  // rank j's copy of this rank's block at j * bytes
  for (int s = 1; s < b.n; ++s) {
    const int from = Mod(b.r - s, b.n);
    KCOLL_RETURN_IF_ERROR(RecvInPieces(res, b, from, copies + from * bytes, mine));
  }
  KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
  if (mine == 0) return absl::OkStatus();
  // In place the fold writes over this rank's own copy before its turn: that copy goes to its unused place first.
  const bool in_place = out == b.Own();
  if (in_place) KCOLL_RETURN_IF_ERROR(res.kernels.Copy(copies + b.r * bytes, b.Own(), bytes));
  auto copy_of = [&](int j) -> const void* { return j == b.r && !in_place ? b.Own() : copies + j * bytes; };
  if (b.n == 1) return res.kernels.Copy(out, copy_of(0), bytes);
  KCOLL_RETURN_IF_ERROR(res.kernels.Reduce(op, type, out, copy_of(0), copy_of(1), mine));
  for (int j = 2; j < b.n; ++j) KCOLL_RETURN_IF_ERROR(res.kernels.Reduce(op, type, out, out, copy_of(j), mine));
  return absl::OkStatus();
}

}  // namespace

absl::Status LinearReduceScatterV(const CollectiveArgs& args, Resources& res) {
  const OwnerBlocks b(res, args.send, args.recv_counts, args.type);
  KCOLL_RETURN_IF_ERROR(SendBlocksToOwners(res, b));
  if (!FoldsOnArrival(res, b)) return FoldOwnBlockAfterReceiving(args.op, args.type, res, b, args.recv);
  KCOLL_RETURN_IF_ERROR(FoldOwnBlockOnArrival(args.op, args.type, res, b, args.recv));
  return res.transport.WaitAll();
}

}  // namespace kcoll
