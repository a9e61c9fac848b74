#include "collectives/algorithms/power_of_two.h"

#include "collectives/status_macros.h"

namespace kcoll {

PowerOfTwoFold MakePowerOfTwoFold(int n, int index) {
  PowerOfTwoFold f;
  while (f.p * 2 <= n) f.p *= 2;
  f.extra = n - f.p;
  if (index < 2 * f.extra) {
    f.folded_out = index % 2 == 0;
    f.partner = f.folded_out ? index + 1 : index - 1;
    f.participant = f.folded_out ? -1 : index / 2;
  } else {
    f.participant = index - f.extra;
  }
  return f;
}

absl::Status FoldIn(Resources& res, const Group& group, const PowerOfTwoFold& fold, const void* in, void* out,
                    void* scratch, size_t count, DataType type, ReduceOp op, int tag) {
  if (fold.partner < 0) return absl::OkStatus();
  const size_t bytes = count * DataTypeSize(type);
  const int peer = group.ranks[fold.partner];
  if (fold.folded_out) {
    KCOLL_RETURN_IF_ERROR(res.transport.Send(peer, in, bytes, tag).status());
    return res.transport.WaitAll();
  }
  KCOLL_RETURN_IF_ERROR(res.transport.Recv(peer, scratch, bytes, tag).status());
  KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
  // The folded rank sits at the lower position: its data is the left operand, as in every pairwise step.
  return res.kernels.Reduce(op, type, out, scratch, in, count);
}

absl::Status FoldOut(Resources& res, const Group& group, const PowerOfTwoFold& fold, void* out, size_t count,
                     DataType type, int tag) {
  if (fold.partner < 0) return absl::OkStatus();
  const size_t bytes = count * DataTypeSize(type);
  const int peer = group.ranks[fold.partner];
  if (fold.folded_out) {
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(peer, out, bytes, tag).status());
  } else {
    KCOLL_RETURN_IF_ERROR(res.transport.Send(peer, out, bytes, tag).status());
  }
  return res.transport.WaitAll();
}

}  // namespace kcoll
