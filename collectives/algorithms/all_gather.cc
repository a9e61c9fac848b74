// AllGather: every rank contributes `count` elements; every rank receives all n contributions, in rank order.
// Two schedules; neither does arithmetic.
//
// Ring (kRing). Each rank first puts its own block in place in the receive buffer. In step s (s = 0..n-2) the rank
// at ring position i sends the block of position i-s (its own at step 0, read straight from the send buffer, then
// the one it received in the step before) to its right neighbour and receives the block of position i-s-1 from its
// left neighbour, directly into its place in the receive buffer.
//   T = (n-1) alpha + (n-1)/n * N beta      (N = n * count * elem, the whole receive buffer)
//
// Recursive doubling (kRecursiveDoubling). For a power of two p2 of ranks, at step d = 1, 2, ..., p2/2 every rank
// exchanges everything it has gathered so far (a contiguous range of d blocks) with the rank d positions away
// (v ^ d); the range doubles each step and after log2(p2) steps holds every block. For other rank counts the first
// 2*rem ranks (rem = n - p2) fold in pairs (power_of_two_fold.h): the even rank of each pair hands its block to the
// odd one, which then gathers for both and finally sends the even rank the whole result.
//   T = log2(p2) alpha + (p2-1)/p2 * N beta                    (n a power of two)
//   T = (log2(p2) + 2) alpha + (1 + (p2-1)/p2 + 1/n) * N beta  (otherwise, on the folded pairs)
//
// Blocks are received straight into the receive buffer, so neither needs scratch. In place (send == recv +
// rank * count) skips the initial copy.
#include "collectives/algorithms/all_gather.h"

#include "base/status_macros.h"
#include "collectives/algorithms/partition.h"
#include "collectives/algorithms/power_of_two_fold.h"
#include "collectives/algorithms/rooted_group.h"

namespace kcoll {
namespace {

absl::Status CopyUnlessSame(Kernels& kernels, void* dst, const void* src, size_t bytes) {
  return dst == src ? absl::OkStatus() : kernels.Copy(dst, src, bytes);
}

}  // namespace

absl::Status RingAllGatherOnGroup(Resources& res, const Group& group, const std::vector<int>& block_index,
                                  const void* send, void* recv, size_t count, DataType type, int tag) {
  const int n = group.size(), me = group.index;
  const size_t bytes = count * DataTypeSize(type);
  char* out = static_cast<char*>(recv);
  auto block = [&](int position) { return out + static_cast<size_t>(block_index[Mod(position, n)]) * bytes; };
  if (count == 0) return absl::OkStatus();

  const int left = group.Peer(-1), right = group.Peer(+1);
  for (int s = 0; s < n - 1; ++s) {
    const void* outgoing = s == 0 ? send : block(me - s);
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(left, block(me - s - 1), bytes, tag).status());
    KCOLL_RETURN_IF_ERROR(res.transport.Send(right, outgoing, bytes, tag).status());
    // The own block's copy overlaps the first transfer.
    if (s == 0) KCOLL_RETURN_IF_ERROR(CopyUnlessSame(res.kernels, block(me), send, bytes));
    KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
  }
  if (n == 1) return CopyUnlessSame(res.kernels, block(me), send, bytes);
  return absl::OkStatus();
}

absl::Status RecursiveDoublingAllGatherOnGroup(Resources& res, const Group& group, const void* send, void* recv,
                                               size_t count, DataType type, int tag) {
  const int n = group.size(), me = group.index;
  const size_t bytes = count * DataTypeSize(type);
  char* out = static_cast<char*>(recv);
  if (count == 0) return absl::OkStatus();
  KCOLL_RETURN_IF_ERROR(CopyUnlessSame(res.kernels, out + me * bytes, send, bytes));
  if (n == 1) return absl::OkStatus();

  const VirtualPowerOfTwo fold(n);
  if (fold.SitsOut(me)) {
    const int partner = group.ranks[me + 1];
    KCOLL_RETURN_IF_ERROR(res.transport.Send(partner, out + me * bytes, bytes, tag).status());
    KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(partner, out, n * bytes, tag).status());
    return res.transport.WaitAll();
  }
  const bool folded = me < 2 * fold.rem;
  if (folded) {
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(group.ranks[me - 1], out + (me - 1) * bytes, bytes, tag).status());
    KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
  }

  const int v = fold.VirtualOf(me);
  auto offset = [&](int virtual_position) { return static_cast<size_t>(fold.FirstBlock(virtual_position)) * bytes; };
  int lo = v;  // this rank holds the blocks of virtual positions [lo, lo + d)
  for (int d = 1; d < fold.p2; d *= 2) {
    const int partner_lo = lo ^ d;
    const int partner = group.ranks[fold.PositionOf(v ^ d)];
    KCOLL_RETURN_IF_ERROR(
        res.transport.Recv(partner, out + offset(partner_lo), offset(partner_lo + d) - offset(partner_lo), tag)
            .status());
    KCOLL_RETURN_IF_ERROR(res.transport.Send(partner, out + offset(lo), offset(lo + d) - offset(lo), tag).status());
    KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
    lo = lo < partner_lo ? lo : partner_lo;
  }
  if (folded) {
    KCOLL_RETURN_IF_ERROR(res.transport.Send(group.ranks[me - 1], out, n * bytes, tag).status());
    KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
  }
  return absl::OkStatus();
}

absl::Status RingAllGather(const CollectiveArgs& args, Resources& res) {
  const Group ring = MakeGroup(res.topology.ring, res.topology.rank);
  return RingAllGatherOnGroup(res, ring, ring.ranks, args.send, args.recv, args.count, args.type, /*tag=*/0);
}

absl::Status RecursiveDoublingAllGather(const CollectiveArgs& args, Resources& res) {
  const Group group = MakeGroup(RankOrder(res.topology.nranks), res.topology.rank);
  return RecursiveDoublingAllGatherOnGroup(res, group, args.send, args.recv, args.count, args.type, /*tag=*/0);
}

}  // namespace kcoll
