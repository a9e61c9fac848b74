// Zero-copy Broadcast on registered buffers (the `direct` algorithm): every rank copies the root's send buffer into
// its own result, then a node barrier ends the call.
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/peer_reads.h"

namespace kcoll {

absl::Status DirectBroadcast(const CollectiveArgs& args, Resources& resources) {
  KCOLL_ASSIGN_OR_RETURN(const PeerMemory::Buffers* peers, PeerBuffers(args, resources));
  const int me = resources.peer_memory->rank();
  const size_t bytes = args.count * DataTypeSize(args.type);
  // On one node, the root's rank within the node is its rank.
  const unsigned char* source = peers->send[args.root];
  if (bytes > 0 && peers->recv[me] != source) {
    KCOLL_RETURN_IF_ERROR(resources.kernels.Copy(peers->recv[me], source, bytes));
  }
  return NodeBarrier(resources);
}

}  // namespace kcoll
