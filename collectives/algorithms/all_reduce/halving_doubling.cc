// Recursive halving-doubling AllReduce (Rabenseifner's algorithm).
//
// For p = 2^k participants the buffer is cut into p blocks (sizes differ by at most one element, so any count
// works, including counts below p where some blocks are empty). Each participant v keeps a window of blocks,
// initially all p of them.
//
// ReduceScatter by recursive halving, distance d = 1, 2, ..., p/2: v pairs with v XOR d, which works on the same
// window (they agree on every bit below d); the window splits into halves, v keeps the lower half if its bit d is
// clear and the upper half otherwise, sends the other half to its partner, receives the partner's copy of the half
// it keeps and reduces it in. The window halves at every step; after log2(p) steps v holds one block fully reduced
// (the one whose index is v's bits reversed). AllGather by recursive doubling in the opposite order, d = p/2, ...,
// 1: v and v XOR d hold the two halves of the window they split at step d, so v sends its window and receives the
// partner's adjacent one straight into the result, doubling the window until it covers the buffer.
//
// The nearest partner gets the largest exchange: participants follow the topology's ring, which puts a node's ranks
// next to each other, so the half of the buffer moves inside nodes and only the smaller steps (the last ones of the
// ReduceScatter, the first of the AllGather) cross between them. With d = p/2 first, 2 nodes of 2 ranks would send
// each node's link twice the bytes.
//
// Each participant sends (p-1)/p of the buffer in each phase, like the ring, but in 2 log2(p) steps instead of
// 2(p-1). Any other rank count is folded onto the largest power of two first (power_of_two_fold.h, fold_transfers.h):
// the extra ranks hand their data to a partner before and get the result back after.
//
// The first step reads this rank's contribution from `in` (or from `out` on a folding partner, which already holds
// its partner's data reduced with its own), so nothing is copied before the reduction. Pairs combine in a fixed
// order, lower participant's data first.
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/doubling_gather.h"
#include "collectives/algorithms/engines/fold_transfers.h"
#include "collectives/algorithms/engines/group.h"
#include "collectives/algorithms/engines/power_of_two_fold.h"
#include "collectives/algorithms/engines/receive_reduce.h"

namespace kcoll {
namespace {

constexpr int kTag = 0;

}  // namespace

absl::Status HalvingDoublingAllReduce(const CollectiveArgs& args, Resources& res) {
  const Group group = MakeGroup(res.topology.ring, res.topology.rank);
  const int n = group.size();
  const size_t elem = DataTypeSize(args.type);
  const char* in = static_cast<const char*>(args.send);
  char* out = static_cast<char*>(args.recv);
  if (n == 1) return res.kernels.Copy(out, in, args.count * elem);
  if (args.count == 0) return absl::OkStatus();

  const VirtualPowerOfTwo fold(n);
  const int p = fold.p2;
  const bool partnered = FoldPartner(fold, group.index) >= 0;
  // The largest receive: the folded-in buffer, or the first (largest) half of the blocks.
  const size_t scratch_elems = partnered ? args.count : BlocksRange(args.count, p, 0, p / 2).count;
  KCOLL_ASSIGN_OR_RETURN(void* scratch_ptr, res.kernels.Scratch(0, scratch_elems * elem));
  char* scratch = static_cast<char*>(scratch_ptr);
  KCOLL_RETURN_IF_ERROR(FoldIn(res, group, fold, in, out, scratch, args.count, args.type, args.op, kTag));

  if (!fold.SitsOut(group.index)) {
    const int v = fold.VirtualOf(group.index);
    const char* mine = partnered ? out : in;
    ReceiveReduce receive_reduce(res, args.op, args.type);  // the half kept is reduced as it arrives where it can
    int lo = 0, hi = p;
    for (int d = 1; d < p; d *= 2) {
      const int peer = group.ranks[fold.PositionOf(v ^ d)];
      const bool lower = (v & d) == 0;
      const int mid = lo + (hi - lo) / 2;
      const Block keep = lower ? BlocksRange(args.count, p, lo, mid) : BlocksRange(args.count, p, mid, hi);
      const Block give = lower ? BlocksRange(args.count, p, mid, hi) : BlocksRange(args.count, p, lo, mid);
      const char* own = mine + keep.offset * elem;
      char* result = out + keep.offset * elem;
      const ReceiveReduce::Order order =
          lower ? ReceiveReduce::Order::kLocalFirst : ReceiveReduce::Order::kIncomingFirst;
      KCOLL_RETURN_IF_ERROR(receive_reduce.Post(peer, result, own, scratch, keep.count, kTag, order).status());
      KCOLL_RETURN_IF_ERROR(res.transport.Send(peer, mine + give.offset * elem, give.count * elem, kTag).status());
      KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
      KCOLL_RETURN_IF_ERROR(receive_reduce.Complete(peer, result, own, scratch, keep.count, order));
      mine = out;
      if (lower) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    KCOLL_RETURN_IF_ERROR(GatherByRecursiveDoubling(
        res, out, args.count, elem, p, v, lo, hi, [&](int w) { return group.ranks[fold.PositionOf(w)]; }, kTag));
  }
  return FoldOut(res, group, fold, out, args.count, args.type, kTag);
}

}  // namespace kcoll
