// Ring ReduceScatter (kRing). Ranks sit on a ring (the topology's ring order); position i must end with its own
// block. In step s (s = 0..n-2) position i sends its partial result for the block of position i-s-1 to its right
// neighbour and receives the partial for the block of position i-s-2 from its left neighbour, which it combines with
// its own contribution to that block. Step 0 sends the rank's own input block straight from the send buffer; later
// steps forward the partial computed in the step before. After n-1 steps the block of position i has gathered all n
// contributions, and the last reduction writes it straight into the receive buffer. It reads the send buffer and
// writes only the rank's own block of the receive buffer, after the last read of that block, so in place
// (recv == send + rank * count) needs no copy.
#include "collectives/algorithms/reduce_scatter/ring.h"

#include "base/status_macros.h"
#include "collectives/algorithms/engines/partition.h"
#include "collectives/algorithms/engines/receive_reduce.h"

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

  const int left = group.Peer(-1), right = group.Peer(+1);
  ReceiveReduce receive_reduce(res, op, type);
  // Received into scratch, a block is reduced after the step's send has read the previous partial, so one partial
  // buffer serves every step. Reduced as it arrives (receive_reduce.h), the step's send may still be reading the
  // previous partial while the new one is written: two partials alternate instead.
  void* partial[2];
  void* incoming = nullptr;
  KCOLL_ASSIGN_OR_RETURN(partial[0], res.kernels.Scratch(0, bytes));
  KCOLL_ASSIGN_OR_RETURN(void* second, res.kernels.Scratch(1, bytes));
  if (receive_reduce.Fused(left)) {
    partial[1] = second;
  } else {
    partial[1] = partial[0];
    incoming = second;
  }
  for (int s = 0; s < n - 1; ++s) {
    const void* outgoing = s == 0 ? block(me - 1) : partial[(s - 1) % 2];
    void* dst = s == n - 2 ? static_cast<void*>(out) : partial[s % 2];
    KCOLL_RETURN_IF_ERROR(receive_reduce.Post(left, dst, block(me - s - 2), incoming, count, tag).status());
    KCOLL_RETURN_IF_ERROR(res.transport.Send(right, outgoing, bytes, tag).status());
    KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
    KCOLL_RETURN_IF_ERROR(receive_reduce.Complete(left, dst, block(me - s - 2), incoming, count));
  }
  return absl::OkStatus();
}

absl::Status RingReduceScatter(const CollectiveArgs& args, Resources& res) {
  const Group ring = MakeGroup(res.topology.ring, res.topology.rank);
  return RingReduceScatterOnGroup(res, ring, ring.ranks, args.send, args.recv, args.count, args.type, args.op,
                                  /*tag=*/0);
}

}  // namespace kcoll
