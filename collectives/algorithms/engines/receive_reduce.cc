#include "collectives/algorithms/engines/receive_reduce.h"

namespace kcoll {

ReceiveReduce::ReceiveReduce(Resources& res, ReduceOp op, DataType type)
    : res_(res), op_(op), type_(type), elem_(DataTypeSize(type)) {
  local_first_ = [this](void* dst, const void* local, const void* incoming, size_t bytes) {
    return res_.kernels.Reduce(op_, type_, dst, local, incoming, bytes / elem_);
  };
  incoming_first_ = [this](void* dst, const void* local, const void* incoming, size_t bytes) {
    return res_.kernels.Reduce(op_, type_, dst, incoming, local, bytes / elem_);
  };
}

absl::StatusOr<Transport::Request> ReceiveReduce::Post(int peer, void* dst, const void* local, void* scratch,
                                                       size_t count, int tag, Order order) {
  if (Fused(peer)) {
    return res_.transport.RecvReduce(peer, dst, local, count * elem_, tag,
                                     order == Order::kLocalFirst ? local_first_ : incoming_first_);
  }
  return res_.transport.Recv(peer, scratch, count * elem_, tag);
}

absl::Status ReceiveReduce::Complete(int peer, void* dst, const void* local, const void* scratch, size_t count,
                                     Order order) {
  if (Fused(peer)) return absl::OkStatus();
  return order == Order::kLocalFirst ? res_.kernels.Reduce(op_, type_, dst, local, scratch, count)
                                     : res_.kernels.Reduce(op_, type_, dst, scratch, local, count);
}

}  // namespace kcoll
