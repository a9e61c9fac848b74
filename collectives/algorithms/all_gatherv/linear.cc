// Linear AllGatherV (kLinear): every rank posts its block's send to every other rank and every other rank's
// receive, straight into its place, all at once, then copies its own block in place while they move. One round:
// n-1 messages per rank in flight together, the fewest steps, for small buffers and few ranks; each rank sends its
// block n-1 times, so the rank with the largest block carries the most (the ring spreads it). Rank order; in place
// (send == recv + recvdispls[rank]) skips the copy.
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/local_copy.h"
#include "collectives/algorithms/engines/partition.h"

namespace kcoll {

absl::Status LinearAllGatherV(const CollectiveArgs& args, Resources& res) {
  const int n = res.topology.nranks, r = res.topology.rank;
  const size_t elem = DataTypeSize(args.type);
  char* out = static_cast<char*>(args.recv);
  // Peers in the order r+1, r+2, ... (receiving from r-1, r-2, ...), so that no rank is everyone's first.
  for (int s = 1; s < n; ++s) {
    const int from = Mod(r - s, n);
    KCOLL_RETURN_IF_ERROR(
        res.transport.Recv(from, out + args.recv_displs[from] * elem, args.recv_counts[from] * elem, 0).status());
  }
  for (int s = 1; s < n; ++s) {
    KCOLL_RETURN_IF_ERROR(res.transport.Send(Mod(r + s, n), args.send, args.count * elem, /*tag=*/0).status());
  }
  KCOLL_RETURN_IF_ERROR(CopyUnlessSame(res.kernels, out + args.recv_displs[r] * elem, args.send, args.count * elem));
  return res.transport.WaitAll();
}

}  // namespace kcoll
