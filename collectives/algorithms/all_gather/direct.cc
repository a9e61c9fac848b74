// Zero-copy AllGather on registered buffers (the `direct` algorithm): every rank copies each rank's contribution
// straight from that rank's send buffer into its own result, starting with its neighbour's, then a node barrier ends
// the call.
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/peer_reads.h"

namespace kcoll {

absl::Status DirectAllGather(const CollectiveArgs& args, Resources& resources) {
  KCOLL_ASSIGN_OR_RETURN(const PeerMemory::Buffers* peers, PeerBuffers(args, resources));
  const int n = resources.peer_memory->size(), me = resources.peer_memory->rank();
  const size_t bytes = args.count * DataTypeSize(args.type);
  unsigned char* recv = peers->recv[me];
  if (bytes > 0) {
    for (int k = 0; k < n; ++k) {
      const int p = (me + k) % n;
      unsigned char* dst = recv + static_cast<size_t>(p) * bytes;
      if (dst == peers->send[p]) continue;  // this rank's own block, in place
      // The result is not read again in this call: a large one is written around the caches.
      KCOLL_RETURN_IF_ERROR(resources.kernels.Copy(dst, peers->send[p], bytes, static_cast<size_t>(n) * bytes));
    }
  }
  return NodeBarrier(resources);
}

}  // namespace kcoll
