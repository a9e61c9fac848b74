// ReduceScatter: every rank contributes n blocks of `count` elements; rank r receives block r reduced over all
// ranks. Two schedules.
//
// Ring (kRing). Ranks sit on a ring (the topology's ring order); position i must end with its own block. In step s
// (s = 0..n-2) position i sends its partial result for the block of position i-s-1 to its right neighbour and
// receives the partial for the block of position i-s-2 from its left neighbour, which it combines with its own
// contribution to that block. Step 0 sends the rank's own input block straight from the send buffer; later steps
// forward the partial computed in the step before. After n-1 steps the block of position i has gathered all n
// contributions, and the last reduction writes it straight into the receive buffer. Each rank sends (n-1) blocks:
//   T = (n-1) alpha + (n-1)/n * N beta      (N = n * count * elem, the whole send buffer)
//
// Recursive halving (kHalvingDoubling). For a power of two p2 of ranks, at step d = p2/2, p2/4, ..., 1 every rank
// pairs with the rank d positions away (v ^ d), splits the range of blocks both still work on into halves, sends
// the half its partner keeps and reduces the half it keeps with the partner's data. Each step halves the range;
// after log2(p2) steps each rank holds its own block, fully reduced. For other rank counts the first 2*rem ranks
// (rem = n - p2) fold in pairs first (power_of_two_fold.h): the even rank of each pair sends its whole buffer to
// the odd one, which reduces it into its own and then works for both; at the end it sends the even rank its block.
//   T = log2(p2) alpha + (p2-1)/p2 * N beta                       (n a power of two)
//   T = (log2(p2) + 2) alpha + (1 + (p2-1)/p2 + 1/n) * N beta     (otherwise, on the folded pairs)
// Fewer steps than the ring: the better choice for small buffers.
//
// Both read the send buffer and write only the rank's own block of the receive buffer, after the last read of
// that block, so in place (recv == send + rank * count) needs no copy.
#include "collectives/algorithms/reduce_scatter.h"

#include "base/status_macros.h"
#include "collectives/algorithms/partition.h"
#include "collectives/algorithms/power_of_two_fold.h"
#include "collectives/algorithms/rooted_group.h"

namespace kcoll {

absl::Status RingReduceScatterOnGroup(Resources& res, const Group& group, const std::vector<int>& block_index,
                                      const void* send, void* recv, size_t count, DataType type, ReduceOp op, int tag) {
  const int n = group.size(), me = group.index;
  const size_t bytes = count * DataTypeSize(type);
  const char* in = static_cast<const char*>(send);
  char* out = static_cast<char*>(recv);
  auto block = [&](int position) { return in + static_cast<size_t>(block_index[Mod(position, n)]) * bytes; };
  if (count == 0) return absl::OkStatus();
  if (n == 1) return out == block(me) ? absl::OkStatus() : res.kernels.Copy(out, block(me), bytes);

  KCOLL_ASSIGN_OR_RETURN(void* partial, res.kernels.Scratch(0, bytes));
  KCOLL_ASSIGN_OR_RETURN(void* incoming, res.kernels.Scratch(1, bytes));
  const int left = group.Peer(-1), right = group.Peer(+1);
  for (int s = 0; s < n - 1; ++s) {
    const void* outgoing = s == 0 ? block(me - 1) : partial;
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(left, incoming, bytes, tag).status());
    KCOLL_RETURN_IF_ERROR(res.transport.Send(right, outgoing, bytes, tag).status());
    KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
    void* dst = s == n - 2 ? static_cast<void*>(out) : partial;
    KCOLL_RETURN_IF_ERROR(res.kernels.Reduce(op, type, dst, block(me - s - 2), incoming, count));
  }
  return absl::OkStatus();
}

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

absl::Status RingReduceScatter(const CollectiveArgs& args, Resources& res) {
  const Group ring = MakeGroup(res.topology.ring, res.topology.rank);
  return RingReduceScatterOnGroup(res, ring, ring.ranks, args.send, args.recv, args.count, args.type, args.op,
                                  /*tag=*/0);
}

absl::Status HalvingReduceScatter(const CollectiveArgs& args, Resources& res) {
  const Group group = MakeGroup(RankOrder(res.topology.nranks), res.topology.rank);
  return HalvingReduceScatterOnGroup(res, group, args.send, args.recv, args.count, args.type, args.op, /*tag=*/0);
}

}  // namespace kcoll
