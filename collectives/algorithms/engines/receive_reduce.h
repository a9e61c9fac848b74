// "Receive a block and reduce it with mine", the step every reducing schedule repeats, done with the least memory
// traffic the transport allows. Where the transport fuses it (Transport::FusesReduce: shared memory), the reduction
// reads the peer's bytes where they arrive and writes the result once, so no scratch buffer is written and read
// back; elsewhere the block is received into scratch and reduced after the wait. A schedule posts, waits (Wait or
// WaitAll as usual), then completes:
//
//   ReceiveReduce rr(res, op, type);
//   KCOLL_ASSIGN_OR_RETURN(auto r, rr.Post(left, dst, mine, scratch, count, tag));
//   ... transport.Wait(r) ...
//   KCOLL_RETURN_IF_ERROR(rr.Complete(left, dst, mine, scratch, count));   // reduces from scratch unless fused
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_RECEIVE_REDUCE_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_RECEIVE_REDUCE_H_

#include <cstddef>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "collectives/algorithms/algorithm.h"

namespace kcoll {

class ReceiveReduce {
 public:
  // Which operand comes first: ops are commutative, but min and max keep the first operand when one is NaN, and a
  // schedule that promises a fixed order ("lower participant first") keeps it whichever way the data arrives.
  enum class Order { kLocalFirst, kIncomingFirst };

  ReceiveReduce(Resources& res, ReduceOp op, DataType type);
  ReceiveReduce(const ReceiveReduce&) = delete;  // the transport keeps a pointer to a reducer
  ReceiveReduce& operator=(const ReceiveReduce&) = delete;

  // Whether a receive from `peer` is reduced as it arrives; schedules skip allocating scratch where it is.
  bool Fused(int peer) const { return res_.transport.FusesReduce(peer); }
  // Posts the receive of `count` elements from `peer` whose sum (the op) with `local` goes to `dst` (dst may equal
  // local). `scratch` (count elements) holds the data until Complete where the transport does not fuse; may be
  // null where it does.
  absl::StatusOr<Transport::Request> Post(int peer, void* dst, const void* local, void* scratch, size_t count, int tag,
                                          Order order = Order::kLocalFirst);
  // Once the request has completed: reduces from scratch unless the transport already did. Same arguments as Post.
  absl::Status Complete(int peer, void* dst, const void* local, const void* scratch, size_t count,
                        Order order = Order::kLocalFirst);

 private:
  Resources& res_;
  ReduceOp op_;
  DataType type_;
  size_t elem_;
  Transport::ChunkReducer local_first_;
  Transport::ChunkReducer incoming_first_;
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_RECEIVE_REDUCE_H_
