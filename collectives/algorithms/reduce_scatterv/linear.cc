// Linear ReduceScatterV (kLinear): every rank sends block j of its input straight to rank j, all at once, and folds
// the n copies of its own block in rank order: recv = copy 0 op copy 1, then recv = recv op copy k for k = 2..n-1 (its
// own copy when k is this rank), the order numerics=deterministic defines (the deterministic schedules take this one
// for float and double). One round: the fewest steps, for small buffers and few ranks; each rank receives n-1 copies
// of its block and reduces them all (the ring spreads the reductions). Separate buffers (no in place).
//
// Where the transport reduces data as it arrives from every peer (shared memory within a node), each copy is reduced
// straight out of the slots as soon as the copies before it are in: no scratch array of n copies, no separate pass.
// Elsewhere every copy is received into scratch at once, and folded after the wait: a stream-ordered transport runs
// the receives posted between two waits as one group, so a rank must not wait on one peer while the others' sends
// still need its later receives (NCCL).
#include <vector>

#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/partition.h"
#include "collectives/algorithms/engines/receive_reduce.h"

namespace kcoll {
namespace {

struct Blocks {
  int n, r;
  size_t elem, mine, bytes;
  std::vector<size_t> offset;  // element offset of each rank's block in the send buffer
  const char* in;
  const char* Own() const { return in + offset[r] * elem; }
};

// Posts the send of every other rank's block to that rank.
absl::Status SendEveryBlock(Resources& res, const Blocks& b) {
  for (int s = 1; s < b.n; ++s) {
    const int to = Mod(b.r + s, b.n);
    KCOLL_RETURN_IF_ERROR(
        res.transport.Send(to, b.in + b.offset[to] * b.elem, (b.offset[to + 1] - b.offset[to]) * b.elem, 0).status());
  }
  return absl::OkStatus();
}

// Receives every copy into scratch, then folds them in rank order.
absl::Status FoldAfterReceiving(const CollectiveArgs& args, Resources& res, const Blocks& b) {
  KCOLL_ASSIGN_OR_RETURN(void* copies_ptr, res.kernels.Scratch(0, std::max<size_t>(b.n * b.bytes, 1)));
  char* copies = static_cast<char*>(copies_ptr);  // rank j's copy of this rank's block at j * bytes
  for (int s = 1; s < b.n; ++s) {
    const int from = Mod(b.r - s, b.n);
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(from, copies + from * b.bytes, b.bytes, /*tag=*/0).status());
  }
  KCOLL_RETURN_IF_ERROR(SendEveryBlock(res, b));
  KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
  if (b.mine == 0) return absl::OkStatus();
  auto copy_of = [&](int j) -> const void* { return j == b.r ? b.Own() : copies + j * b.bytes; };
  if (b.n == 1) return res.kernels.Copy(args.recv, copy_of(0), b.bytes);
  KCOLL_RETURN_IF_ERROR(res.kernels.Reduce(args.op, args.type, args.recv, copy_of(0), copy_of(1), b.mine));
  for (int j = 2; j < b.n; ++j) {
    KCOLL_RETURN_IF_ERROR(res.kernels.Reduce(args.op, args.type, args.recv, args.recv, copy_of(j), b.mine));
  }
  return absl::OkStatus();
}

// Reduces each copy out of the transport's slots as it arrives, in rank order (every peer fuses, n >= 2, mine > 0).
absl::Status FoldOnArrival(const CollectiveArgs& args, Resources& res, const Blocks& b, ReceiveReduce& rr) {
  KCOLL_RETURN_IF_ERROR(SendEveryBlock(res, b));
  char* out = static_cast<char*>(args.recv);
  // The fold so far: rank 0's copy (this rank's own block, read in place, or received into recv), then recv.
  const void* so_far = b.Own();
  if (b.r != 0) {
    KCOLL_ASSIGN_OR_RETURN(Transport::Request first, res.transport.Recv(0, out, b.bytes, 0));
    KCOLL_RETURN_IF_ERROR(res.transport.Wait(first));
    so_far = out;
  }
  for (int k = 1; k < b.n; ++k) {
    if (k == b.r) {
      KCOLL_RETURN_IF_ERROR(res.kernels.Reduce(args.op, args.type, out, so_far, b.Own(), b.mine));
    } else {
      KCOLL_ASSIGN_OR_RETURN(Transport::Request request, rr.Post(k, out, so_far, nullptr, b.mine, 0));
      KCOLL_RETURN_IF_ERROR(res.transport.Wait(request));
      KCOLL_RETURN_IF_ERROR(rr.Complete(k, out, so_far, nullptr, b.mine));
    }
    so_far = out;
  }
  return res.transport.WaitAll();
}

}  // namespace

absl::Status LinearReduceScatterV(const CollectiveArgs& args, Resources& res) {
  Blocks b{res.topology.nranks, res.topology.rank, DataTypeSize(args.type), 0, 0, {}, nullptr};
  b.offset.assign(b.n + 1, 0);
  for (int j = 0; j < b.n; ++j) b.offset[j + 1] = b.offset[j] + args.recv_counts[j];
  b.in = static_cast<const char*>(args.send);
  b.mine = args.recv_counts[b.r];
  b.bytes = b.mine * b.elem;
  ReceiveReduce rr(res, args.op, args.type);
  bool fused = b.n >= 2 && b.mine > 0;
  for (int k = 0; k < b.n && fused; ++k) fused = k == b.r || rr.Fused(k);
  return fused ? FoldOnArrival(args, res, b, rr) : FoldAfterReceiving(args, res, b);
}

}  // namespace kcoll
