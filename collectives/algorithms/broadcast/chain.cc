// Pipelined chain Broadcast (kChain). The ranks form a chain root -> 1 -> ... -> n-1 along the topology's ring
// order starting at the root, and the buffer is cut into stages of `chunk_bytes` (AlgorithmOptions;
// kDefaultChunkBytes when 0). Each rank forwards stage c as soon as it has received it, while stage c+1 is already
// arriving, so after the pipeline fills every link is busy: the choice for large buffers. The root sends straight
// from its send buffer and copies it to its receive buffer unless in place (send == recv).
#include "collectives/algorithms/broadcast/chain.h"

#include <algorithm>
#include <vector>

#include "base/status_macros.h"
#include "collectives/algorithms/engines/chunking.h"
#include "collectives/algorithms/engines/local_copy.h"
#include "collectives/algorithms/engines/rooted_group.h"

namespace kcoll {

absl::Status ChainBroadcastOnGroup(Resources& res, const Group& group, const void* root_src, void* buffer, size_t bytes,
                                   size_t chunk_bytes, int tag) {
  const int n = group.size(), p = group.index;
  if (bytes == 0 || n == 1) return absl::OkStatus();
  const bool has_prev = p > 0, has_next = p < n - 1;
  const size_t stages = (bytes + chunk_bytes - 1) / chunk_bytes;
  auto offset = [&](size_t c) { return c * chunk_bytes; };
  auto length = [&](size_t c) { return std::min(chunk_bytes, bytes - c * chunk_bytes); };
  char* buf = static_cast<char*>(buffer);
  const char* src = has_prev ? buf : static_cast<const char*>(root_src);

  std::vector<Transport::Request> arrivals(stages);
  if (has_prev) {
    KCOLL_ASSIGN_OR_RETURN(arrivals[0], res.transport.Recv(group.ranks[p - 1], buf, length(0), tag));
  }
  for (size_t c = 0; c < stages; ++c) {
    if (has_prev) {
      if (c + 1 < stages) {
        KCOLL_ASSIGN_OR_RETURN(arrivals[c + 1],
                               res.transport.Recv(group.ranks[p - 1], buf + offset(c + 1), length(c + 1), tag));
      }
      KCOLL_RETURN_IF_ERROR(res.transport.Wait(arrivals[c]));
    }
    if (has_next) {
      KCOLL_RETURN_IF_ERROR(res.transport.Send(group.ranks[p + 1], src + offset(c), length(c), tag).status());
    }
  }
  return res.transport.WaitAll();
}

absl::Status ChainBroadcast(const CollectiveArgs& args, Resources& res) {
  const Group group = MakeRootedGroup(res.topology.ring, args.root, res.topology.rank);
  const size_t elem = DataTypeSize(args.type);
  const size_t chunk_bytes = ChunkElems(args.options, args.type) * elem;
  KCOLL_RETURN_IF_ERROR(
      ChainBroadcastOnGroup(res, group, args.send, args.recv, args.count * elem, chunk_bytes, /*tag=*/0));
  return CopyOnRoot(args, res);
}

}  // namespace kcoll
