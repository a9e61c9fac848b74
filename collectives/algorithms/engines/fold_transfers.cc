#include "collectives/algorithms/engines/fold_transfers.h"

#include "base/status_macros.h"

namespace kcoll {

absl::Status FoldIn(Resources& res, const Group& group, const VirtualPowerOfTwo& fold, const void* in, void* out,
                    void* scratch, size_t count, DataType type, ReduceOp op, int tag) {
  const int partner = FoldPartner(fold, group.index);
  if (partner < 0) return absl::OkStatus();
  const size_t bytes = count * DataTypeSize(type);
  const int peer = group.ranks[partner];
  if (fold.SitsOut(group.index)) {
    KCOLL_RETURN_IF_ERROR(res.transport.Send(peer, in, bytes, tag).status());
    return res.transport.WaitAll();
  }
  KCOLL_RETURN_IF_ERROR(res.transport.Recv(peer, scratch, bytes, tag).status());
  KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
  // The rank that sits out has the lower position: its data is the left operand, as in every pairwise step.
  return res.kernels.Reduce(op, type, out, scratch, in, count);
}

absl::Status FoldOut(Resources& res, const Group& group, const VirtualPowerOfTwo& fold, void* out, size_t count,
                     DataType type, int tag) {
  const int partner = FoldPartner(fold, group.index);
  if (partner < 0) return absl::OkStatus();
  const size_t bytes = count * DataTypeSize(type);
  const int peer = group.ranks[partner];
  if (fold.SitsOut(group.index)) {
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(peer, out, bytes, tag).status());
  } else {
    KCOLL_RETURN_IF_ERROR(res.transport.Send(peer, out, bytes, tag).status());
  }
  return res.transport.WaitAll();
}

}  // namespace kcoll
