// Ring AllGather (kRing). Each rank first puts its own block in place in the receive buffer. In step s
// (s = 0..n-2) the rank at ring position i sends the block of position i-s (its own at step 0, read straight from the
// send buffer, then the one it received in the step before) to its right neighbour and receives the block of
// position i-s-1 from its left neighbour, directly into its place in the receive buffer: n-1 steps, each rank
// sending (n-1)/n of the result. The communicator-wide version runs around the topology's ring. Blocks are received
// straight into the receive buffer, so no scratch; in place (send == recv + rank * count) skips the initial copy.
#include "collectives/algorithms/all_gather/ring.h"

#include "base/status_macros.h"
#include "collectives/algorithms/engines/local_copy.h"
#include "collectives/algorithms/engines/partition.h"

namespace kcoll {

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

absl::Status RingAllGather(const CollectiveArgs& args, Resources& res) {
  const Group ring = MakeGroup(res.topology.ring, res.topology.rank);
  return RingAllGatherOnGroup(res, ring, ring.ranks, args.send, args.recv, args.count, args.type, /*tag=*/0);
}

}  // namespace kcoll
