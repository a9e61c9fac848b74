// ReduceScatterV (MPI_Reduce_scatter): send holds n blocks end to end, block j of recvcounts[j] elements; block j
// reduced over every rank lands in rank j's recv.
//
// Ring ReduceScatterV (kRing): the ring ReduceScatter with blocks of their own sizes, around the topology's ring. In
// step s (s = 0..n-2) the rank at ring position p sends its partial of the block of position p-s-1 (at step 0 its
// own input block) to its right neighbour and receives the partial of the block of position p-s-2 from its left one,
// which it reduces with its own input block: after n-1 steps the block it received last, its own, has passed every
// rank. Each rank sends S minus its own block, the bandwidth optimum for any counts; the choice for large buffers.
// Empty blocks still travel as zero-byte messages. In place (recv is the rank's own block of send) needs nothing
// more: the own block is read only by the last step's reduction, element by element as it is written.
#include <algorithm>
#include <vector>

#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/group.h"
#include "collectives/algorithms/engines/partition.h"

namespace kcoll {

absl::Status RingReduceScatterV(const CollectiveArgs& args, Resources& res) {
  const Group group = MakeGroup(res.topology.ring, res.topology.rank);
  const int n = group.size(), me = group.index;
  const size_t elem = DataTypeSize(args.type);
  const size_t* counts = args.recv_counts;
  std::vector<size_t> offset(res.topology.nranks + 1, 0);  // element offset of each rank's block in send
  for (int j = 0; j < res.topology.nranks; ++j) offset[j + 1] = offset[j] + counts[j];
  const char* in = static_cast<const char*>(args.send);
  char* out = static_cast<char*>(args.recv);
  const int own = group.ranks[me];
  if (n == 1) return counts[own] == 0 ? absl::OkStatus() : res.kernels.Copy(out, in, counts[own] * elem);
  // Partials live in `partial` at their block's offset; what arrives goes to `incoming` first.
  size_t largest = 0;
  for (int j = 0; j < n; ++j) largest = std::max(largest, counts[j]);
  KCOLL_ASSIGN_OR_RETURN(void* partial_ptr, res.kernels.Scratch(0, std::max<size_t>(offset[n], 1) * elem));
  KCOLL_ASSIGN_OR_RETURN(void* incoming_ptr, res.kernels.Scratch(1, std::max<size_t>(largest, 1) * elem));
  char* partial = static_cast<char*>(partial_ptr);
  char* incoming = static_cast<char*>(incoming_ptr);
  auto rank_at = [&](int position) { return group.ranks[Mod(position, n)]; };
  for (int s = 0; s < n - 1; ++s) {
    const int outgoing = rank_at(me - s - 1), arriving = rank_at(me - s - 2);
    const char* from = s == 0 ? in + offset[outgoing] * elem : partial + offset[outgoing] * elem;
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(group.Peer(-1), incoming, counts[arriving] * elem, /*tag=*/0).status());
    KCOLL_RETURN_IF_ERROR(res.transport.Send(group.Peer(+1), from, counts[outgoing] * elem, /*tag=*/0).status());
    KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
    // The last step's block is this rank's own: its result goes straight to recv.
    char* into = s == n - 2 ? out : partial + offset[arriving] * elem;
    if (counts[arriving] > 0) {
      KCOLL_RETURN_IF_ERROR(
          res.kernels.Reduce(args.op, args.type, into, incoming, in + offset[arriving] * elem, counts[arriving]));
    }
  }
  return absl::OkStatus();
}

}  // namespace kcoll
