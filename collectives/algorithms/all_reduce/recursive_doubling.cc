// Recursive doubling AllReduce.
//
// For p = 2^k participants, at distance d = 1, 2, ..., p/2 participant v exchanges its whole current partial
// result with v XOR d and reduces the two. After step d every participant holds the reduction over its aligned
// group of 2d participants, so after log2(p) steps everyone holds the full result: the fewest possible steps
// (log2 p), each moving the whole buffer, which makes it the choice for small messages where latency dominates.
// Other rank counts are folded onto the largest power of two (power_of_two_fold.h, fold_transfers.h): one more transfer
// before, one after.
//
// Both partners of a pair compute the same elements, so they combine in the same order (lower participant's data
// first): with a commutative but not bitwise-symmetric op (min/max of signed zeros, NaN payloads) the two would
// otherwise end up with different bits. The first step reads `in` directly; each step's result goes to `out`.
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/fold_transfers.h"
#include "collectives/algorithms/engines/group.h"
#include "collectives/algorithms/engines/power_of_two_fold.h"

namespace kcoll {
namespace {

constexpr int kTag = 0;

}  // namespace

absl::Status RecursiveDoublingAllReduce(const CollectiveArgs& args, Resources& res) {
  const Group group = MakeGroup(res.topology.ring, res.topology.rank);
  const int n = group.size();
  const size_t bytes = args.count * DataTypeSize(args.type);
  const char* in = static_cast<const char*>(args.send);
  char* out = static_cast<char*>(args.recv);
  if (n == 1) return res.kernels.Copy(out, in, bytes);
  if (args.count == 0) return absl::OkStatus();

  const VirtualPowerOfTwo fold(n);
  const bool partnered = FoldPartner(fold, group.index) >= 0;
  KCOLL_ASSIGN_OR_RETURN(void* scratch, res.kernels.Scratch(0, bytes));
  KCOLL_RETURN_IF_ERROR(FoldIn(res, group, fold, in, out, scratch, args.count, args.type, args.op, kTag));
  if (!fold.SitsOut(group.index)) {
    const int v = fold.VirtualOf(group.index);
    const char* mine = partnered ? out : in;
    for (int d = 1; d < fold.p2; d *= 2) {
      const int peer = group.ranks[fold.PositionOf(v ^ d)];
      KCOLL_RETURN_IF_ERROR(res.transport.Recv(peer, scratch, bytes, kTag).status());
      KCOLL_RETURN_IF_ERROR(res.transport.Send(peer, mine, bytes, kTag).status());
      KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
      const bool lower = (v & d) == 0;
      KCOLL_RETURN_IF_ERROR(
          res.kernels.Reduce(args.op, args.type, out, lower ? mine : scratch, lower ? scratch : mine, args.count));
      mine = out;
    }
  }
  return FoldOut(res, group, fold, out, args.count, args.type, kTag);
}

}  // namespace kcoll
