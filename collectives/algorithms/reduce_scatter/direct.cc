// Zero-copy ReduceScatter on registered buffers (the `direct` algorithm): rank r reduces its block of the result
// straight from every rank's send buffer, then a node barrier ends the call.
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/peer_reads.h"

namespace kcoll {

absl::Status DirectReduceScatter(const CollectiveArgs& args, Resources& resources) {
  KCOLL_ASSIGN_OR_RETURN(const PeerMemory::Buffers* peers, PeerBuffers(args, resources));
  Kernels& kernels = resources.kernels;
  const int n = resources.peer_memory->size(), me = resources.peer_memory->rank();
  const size_t bytes = args.count * DataTypeSize(args.type);
  const size_t at = static_cast<size_t>(me) * bytes;
  unsigned char* recv = peers->recv[me];
  if (bytes > 0) {
    if (n == 1) {
      if (recv != peers->send[me]) KCOLL_RETURN_IF_ERROR(kernels.Copy(recv, peers->send[me], bytes));
    } else {
      KCOLL_RETURN_IF_ERROR(ReduceFromEveryRank(args, resources, *peers, recv, at, args.count));
    }
  }
  return NodeBarrier(resources);
}

}  // namespace kcoll
