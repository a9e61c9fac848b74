// Recursive-halving ReduceScatter (kHalvingDoubling). For a power of two p2 of ranks, at step d = p2/2, p2/4, ..., 1
// every rank pairs with the rank d positions away (v ^ d), splits the range of blocks both still work on into
// halves, sends the half its partner keeps and reduces the half it keeps with the partner's data. Each step halves
// the range; after log2(p2) steps each rank holds its own block, fully reduced. For other rank counts the first
// 2*rem ranks (rem = n - p2) fold in pairs first (engines/power_of_two_fold.h): the even rank of each pair sends its
// whole buffer to the odd one, which reduces it into its own and then works for both; at the end it sends the even
// rank its block. Fewer steps than the ring, the same bytes. The communicator-wide version runs in rank order; in
// place (recv == send + rank * count) needs no copy.
#include "collectives/algorithms/reduce_scatter/halving_doubling.h"

#include "base/status_macros.h"
#include "collectives/algorithms/engines/power_of_two_fold.h"
#include "collectives/algorithms/engines/rooted_group.h"

namespace kcoll {

absl::Status HalvingReduceScatterOnGroup(Resources& res, const Group& group, const void* send, void* recv, size_t count,
                                         DataType type, ReduceOp op, int tag) {
  const int n = group.size(), me = group.index;
  const size_t elem = DataTypeSize(type), bytes = count * elem;
  const char* in = static_cast<const char*>(send);
  char* out = static_cast<char*>(recv);
  if (count == 0) return absl::OkStatus();
  if (n == 1) return out == in ? absl::OkStatus() : res.kernels.Copy(out, in, bytes);

  const VirtualPowerOfTwo fold(n);
  if (fold.SitsOut(me)) {
    const int partner = group.ranks[me + 1];
    KCOLL_RETURN_IF_ERROR(res.transport.Send(partner, in, n * bytes, tag).status());
    KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(partner, out, bytes, tag).status());
    return res.transport.WaitAll();
  }
  const bool folded = me < 2 * fold.rem;
  KCOLL_ASSIGN_OR_RETURN(void* acc_ptr, res.kernels.Scratch(0, n * bytes));
  char* acc = static_cast<char*>(acc_ptr);
  const char* src = in;  // where the blocks this rank still works on are, reduced so far
  if (folded) {
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(group.ranks[me - 1], acc, n * bytes, tag).status());
    KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
    KCOLL_RETURN_IF_ERROR(res.kernels.Reduce(op, type, acc, in, acc, n * count));
    src = acc;
  }

  const int v = fold.VirtualOf(me);
  auto offset = [&](int virtual_position) { return static_cast<size_t>(fold.FirstBlock(virtual_position)) * bytes; };
  // The half kept at the first step is the largest message this rank receives.
  const int half = fold.p2 / 2;
  const size_t largest = v < half ? offset(half) - offset(0) : offset(fold.p2) - offset(half);
  KCOLL_ASSIGN_OR_RETURN(void* incoming, res.kernels.Scratch(1, largest));

  int lo = 0, hi = fold.p2;  // the virtual positions whose blocks this rank still works on
  for (int d = half; d >= 1; d /= 2) {
    const int mid = lo + d;
    const bool lower = v < mid;
    const int keep_lo = lower ? lo : mid, keep_hi = lower ? mid : hi;
    const int give_lo = lower ? mid : lo, give_hi = lower ? hi : mid;
    const int partner = group.ranks[fold.PositionOf(v ^ d)];
    const size_t keep_bytes = offset(keep_hi) - offset(keep_lo);
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(partner, incoming, keep_bytes, tag).status());
    KCOLL_RETURN_IF_ERROR(
        res.transport.Send(partner, src + offset(give_lo), offset(give_hi) - offset(give_lo), tag).status());
    KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
    // The last step of an unfolded rank leaves exactly its own block: reduce it straight into the result.
    char* dst = (d == 1 && !folded) ? out : acc + offset(keep_lo);
    KCOLL_RETURN_IF_ERROR(res.kernels.Reduce(op, type, dst, src + offset(keep_lo), incoming, keep_bytes / elem));
    src = acc;
    lo = keep_lo;
    hi = keep_hi;
  }
  if (!folded) return absl::OkStatus();
  // A folded rank holds its partner's block and its own.
  KCOLL_RETURN_IF_ERROR(res.transport.Send(group.ranks[me - 1], src + (me - 1) * bytes, bytes, tag).status());
  KCOLL_RETURN_IF_ERROR(res.kernels.Copy(out, src + me * bytes, bytes));
  return res.transport.WaitAll();
}

absl::Status HalvingDoublingReduceScatter(const CollectiveArgs& args, Resources& res) {
  const Group group = MakeGroup(RankOrder(res.topology.nranks), res.topology.rank);
  return HalvingReduceScatterOnGroup(res, group, args.send, args.recv, args.count, args.type, args.op, /*tag=*/0);
}

}  // namespace kcoll
