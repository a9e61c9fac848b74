// Recursive-doubling AllGather (kRecursiveDoubling). For a power of two p2 of ranks, at step d = 1, 2, ..., p2/2
// every rank exchanges everything it has gathered so far (a contiguous range of d blocks) with the rank d positions
// away (v ^ d); the range doubles each step and after log2(p2) steps holds every block. For other rank counts the
// first 2*rem ranks (rem = n - p2) fold in pairs (engines/power_of_two_fold.h): the even rank of each pair hands its
// block to the odd one, which then gathers for both and finally sends the even rank the whole result. The
// communicator-wide version runs in rank order. Blocks are received straight into the receive buffer, so no scratch.
#include "collectives/algorithms/all_gather/recursive_doubling.h"

#include "base/status_macros.h"
#include "collectives/algorithms/engines/local_copy.h"
#include "collectives/algorithms/engines/power_of_two_fold.h"
#include "collectives/algorithms/engines/rooted_group.h"

namespace kcoll {

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

absl::Status RecursiveDoublingAllGather(const CollectiveArgs& args, Resources& res) {
  const Group group = MakeGroup(RankOrder(res.topology.nranks), res.topology.rank);
  return RecursiveDoublingAllGatherOnGroup(res, group, args.send, args.recv, args.count, args.type, /*tag=*/0);
}

}  // namespace kcoll
