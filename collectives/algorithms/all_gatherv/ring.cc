// AllGatherV: rank j's sendcount elements land at recvdispls[j] of every rank's receive buffer, recvcounts[j] being
// rank j's sendcount on every rank (MPI_Allgatherv).
//
// Ring AllGatherV (kRing): the ring AllGather with blocks of their own sizes. Each rank first puts its own block in
// place; in step s (s = 0..n-2) the rank at ring position i sends the block of position i-s to its right neighbour
// and receives the block of position i-s-1 from its left one, straight into its place. n-1 steps; every block
// crosses every link but one once, so each rank sends S minus the block of its right neighbour: the bandwidth optimum
// for any counts, and the choice for large buffers. Empty blocks still travel as zero-byte messages so both sides
// agree. In place (send == recv + recvdispls[rank]) skips the first copy.
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/group.h"
#include "collectives/algorithms/engines/local_copy.h"

namespace kcoll {

absl::Status RingAllGatherV(const CollectiveArgs& args, Resources& res) {
  const Group group = MakeGroup(res.topology.ring, res.topology.rank);
  const int n = group.size(), me = group.index;
  const size_t elem = DataTypeSize(args.type);
  char* out = static_cast<char*>(args.recv);
  auto rank_at = [&](int position) { return group.ranks[Mod(position, n)]; };
  auto block = [&](int rank) { return out + args.recv_displs[rank] * elem; };
  auto bytes = [&](int rank) { return args.recv_counts[rank] * elem; };
  const int own = rank_at(me);
  for (int s = 0; s < n - 1; ++s) {
    const int outgoing = rank_at(me - s), incoming = rank_at(me - s - 1);
    const void* from = s == 0 ? args.send : block(outgoing);
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(group.Peer(-1), block(incoming), bytes(incoming), /*tag=*/0).status());
    KCOLL_RETURN_IF_ERROR(res.transport.Send(group.Peer(+1), from, bytes(outgoing), /*tag=*/0).status());
    if (s == 0) KCOLL_RETURN_IF_ERROR(CopyUnlessSame(res.kernels, block(own), args.send, bytes(own)));
    KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
  }
  if (n == 1) return CopyUnlessSame(res.kernels, block(own), args.send, bytes(own));
  return absl::OkStatus();
}

}  // namespace kcoll
