#include "collectives/algorithms/engines/owner_fold.h"

#include <algorithm>

#include "base/status_macros.h"
#include "collectives/algorithms/engines/partition.h"

namespace kcoll {
namespace {

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

}  // namespace

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

size_t OwnerBlocks::PiecesWith(const Resources& res, int peer, int j) const {
  return PiecesOf(Count(j), PieceWith(res, peer));
}

absl::Status SendPiecesToOwners(Resources& res, const OwnerBlocks& b, size_t first, size_t end) {
  size_t most = 0;
  for (int s = 1; s < b.n; ++s) {
    const int to = Mod(b.r + s, b.n);
    most = std::max(most, b.PiecesWith(res, to, to));
  }
  for (size_t p = first; p < std::min(end, most); ++p) {
    for (int s = 1; s < b.n; ++s) {
      const int to = Mod(b.r + s, b.n);
      const size_t piece = b.PieceWith(res, to);
      if (p >= PiecesOf(b.Count(to), piece)) continue;
      const size_t at = p * piece;
      KCOLL_RETURN_IF_ERROR(
          res.transport.Send(to, b.Block(to) + at * b.elem, std::min(piece, b.Count(to) - at) * b.elem, 0).status());
    }
  }
  return absl::OkStatus();
}

bool FoldsOnArrival(const Resources& res, const OwnerBlocks& b) {
  bool fused = b.n >= 2 && b.Mine() > 0;
  for (int k = 0; k < b.n && fused; ++k) fused = k == b.r || res.transport.FusesReduce(k);
  return fused;
}

OnArrivalFold::OnArrivalFold(ReduceOp op, DataType type, Resources& res, const OwnerBlocks& b, void* out)
    : op_(op),
      type_(type),
      res_(res),
      b_(b),
      out_(static_cast<char*>(out)),
      rr_(res, op, type),
      piece_(b.PieceWith(res, Mod(b.r + 1, b.n))) {}

absl::Status OnArrivalFold::Init() {
  if (out_ == b_.Own() && b_.r != 0) {
    KCOLL_ASSIGN_OR_RETURN(void* scratch, res_.kernels.Scratch(0, std::min(piece_, b_.Mine()) * b_.elem));
    early_ = static_cast<char*>(scratch);
  }
  return absl::OkStatus();
}

absl::Status OnArrivalFold::Fold(size_t p) {
  const size_t first = p * piece_, count = std::min(piece_, b_.Mine() - first);
  char* result = out_ + first * b_.elem;
  const char* own = b_.Own() + first * b_.elem;
  auto into = [&](int k) { return early_ != nullptr && k < b_.r ? early_ : result; };  // where step k's fold goes
  // The fold so far: rank 0's copy (this rank's own, read where it is, or received), then each step's fold.
  const void* so_far = own;
  if (b_.r != 0) {
    KCOLL_ASSIGN_OR_RETURN(Transport::Request copy0, res_.transport.Recv(0, into(0), count * b_.elem, 0));
    KCOLL_RETURN_IF_ERROR(res_.transport.Wait(copy0));
    so_far = into(0);
  }
  for (int k = 1; k < b_.n; ++k) {
    if (k == b_.r) {
      KCOLL_RETURN_IF_ERROR(res_.kernels.Reduce(op_, type_, into(k), so_far, own, count));
    } else {
      KCOLL_ASSIGN_OR_RETURN(Transport::Request request, rr_.Post(k, into(k), so_far, nullptr, count, 0));
      KCOLL_RETURN_IF_ERROR(res_.transport.Wait(request));
      KCOLL_RETURN_IF_ERROR(rr_.Complete(k, into(k), so_far, nullptr, count));
    }
    so_far = into(k);
  }
  return absl::OkStatus();
}

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

}  // namespace kcoll
