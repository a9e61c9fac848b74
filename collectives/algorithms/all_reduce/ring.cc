// Ring AllReduce: a ReduceScatter followed by an AllGather around a ring of n ranks.
//
// The buffer is cut into n blocks (sizes differ by at most one element). In ReduceScatter step s (s = 0..n-2),
// the rank at ring position i sends block (i - s) to its right neighbour and receives block (i - s - 1) from its
// left neighbour into scratch, then reduces it into its result buffer. After n-1 steps position i holds block
// (i + 1) fully reduced. In AllGather step s, position i sends block (i + 1 - s), the one it completed or received
// last, and receives block (i - s) straight into the result. Each rank sends 2(n-1)/n of the buffer in total,
// the bandwidth optimum, in 2(n-1) latency-bound steps.
//
// The first ReduceScatter step reads the send buffer directly and every reduction reads the block from the send
// buffer, so an out-of-place call needs no initial copy; in place, send and recv are the same buffer. Over shared
// memory a received block is reduced straight out of the transport's slots (receive_reduce.h), without scratch.
#include "collectives/algorithms/all_reduce/ring.h"

#include "base/status_macros.h"
#include "collectives/algorithms/engines/partition.h"
#include "collectives/algorithms/engines/receive_reduce.h"

namespace kcoll {

absl::Status RingAllReduceOnGroup(Resources& res, const Group& group, const void* send, void* recv, size_t count,
                                  DataType type, ReduceOp op, int tag) {
  const int n = group.size();
  const size_t elem = DataTypeSize(type);
  char* out = static_cast<char*>(recv);
  const char* in = static_cast<const char*>(send);
  if (n == 1) return res.kernels.Copy(out, in, count * elem);

  const int left = group.Peer(-1), right = group.Peer(+1);
  const int me = group.index;
  ReceiveReduce receive_reduce(res, op, type);
  void* scratch = nullptr;
  if (!receive_reduce.Fused(left)) {
    KCOLL_ASSIGN_OR_RETURN(scratch, res.kernels.Scratch(0, BlockOf(count, n, 0).count * elem));
  }

  for (int s = 0; s < n - 1; ++s) {
    const Block send_block = BlockOf(count, n, Mod(me - s, n));
    const Block recv_block = BlockOf(count, n, Mod(me - s - 1, n));
    const char* send_from = (s == 0 ? in : out) + send_block.offset * elem;
    const size_t at = recv_block.offset * elem;
    KCOLL_RETURN_IF_ERROR(receive_reduce.Post(left, out + at, in + at, scratch, recv_block.count, tag).status());
    KCOLL_RETURN_IF_ERROR(res.transport.Send(right, send_from, send_block.count * elem, tag).status());
    KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
    KCOLL_RETURN_IF_ERROR(receive_reduce.Complete(left, out + at, in + at, scratch, recv_block.count));
  }
  for (int s = 0; s < n - 1; ++s) {
    const Block send_block = BlockOf(count, n, Mod(me + 1 - s, n));
    const Block recv_block = BlockOf(count, n, Mod(me - s, n));
    KCOLL_RETURN_IF_ERROR(
        res.transport.Recv(left, out + recv_block.offset * elem, recv_block.count * elem, tag).status());
    KCOLL_RETURN_IF_ERROR(
        res.transport.Send(right, out + send_block.offset * elem, send_block.count * elem, tag).status());
    KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
  }
  return absl::OkStatus();
}

absl::Status RingAllReduce(const CollectiveArgs& args, Resources& res) {
  const Group ring = MakeGroup(res.topology.ring, res.topology.rank);
  return RingAllReduceOnGroup(res, ring, args.send, args.recv, args.count, args.type, args.op, /*tag=*/0);
}

}  // namespace kcoll
