// Pipelined chain Reduce (kChain), Broadcast's chain reversed: the ranks form a chain n-1 -> ... -> 1 -> root along
// the topology's ring order ending at the root, and the buffer is cut into stages of `chunk_bytes` (AlgorithmOptions;
// kDefaultChunkBytes when 0). Each rank receives stage c of the partial result from upstream, combines it with its
// own stage c and forwards it downstream while stage c+1 arrives: the choice for large buffers. In place (send ==
// recv on the root) needs no copy.
#include "collectives/algorithms/reduce/chain.h"

#include <algorithm>
#include <vector>

#include "base/status_macros.h"
#include "collectives/algorithms/engines/chunking.h"
#include "collectives/algorithms/engines/rooted_group.h"

namespace kcoll {

absl::Status ChainReduceOnGroup(Resources& res, const Group& group, const void* send, void* recv, size_t count,
                                DataType type, ReduceOp op, size_t chunk_elements, int tag) {
  const int n = group.size(), p = group.index;
  const size_t elem = DataTypeSize(type);
  const char* in = static_cast<const char*>(send);
  if (count == 0) return absl::OkStatus();
  if (n == 1) return send == recv ? absl::OkStatus() : res.kernels.Copy(recv, send, count * elem);
  const size_t stages = (count + chunk_elements - 1) / chunk_elements;
  auto first = [&](size_t c) { return c * chunk_elements; };
  auto length = [&](size_t c) { return std::min(chunk_elements, count - c * chunk_elements); };
  const bool has_upstream = p < n - 1, root = p == 0;

  if (!has_upstream) {  // the far end of the chain only sends its own contribution
    for (size_t c = 0; c < stages; ++c) {
      KCOLL_RETURN_IF_ERROR(
          res.transport.Send(group.ranks[p - 1], in + first(c) * elem, length(c) * elem, tag).status());
    }
    return res.transport.WaitAll();
  }
  KCOLL_ASSIGN_OR_RETURN(void* incoming_ptr, res.kernels.Scratch(0, count * elem));
  char* incoming = static_cast<char*>(incoming_ptr);
  // Downstream ranks reduce in place in the scratch they received into and forward it from there.
  char* result = root ? static_cast<char*>(recv) : incoming;
  const int upstream = group.ranks[p + 1];
  std::vector<Transport::Request> arrivals(stages);
  KCOLL_ASSIGN_OR_RETURN(arrivals[0], res.transport.Recv(upstream, incoming, length(0) * elem, tag));
  for (size_t c = 0; c < stages; ++c) {
    if (c + 1 < stages) {
      KCOLL_ASSIGN_OR_RETURN(arrivals[c + 1],
                             res.transport.Recv(upstream, incoming + first(c + 1) * elem, length(c + 1) * elem, tag));
    }
    KCOLL_RETURN_IF_ERROR(res.transport.Wait(arrivals[c]));
    const size_t at = first(c) * elem;
    KCOLL_RETURN_IF_ERROR(res.kernels.Reduce(op, type, result + at, in + at, incoming + at, length(c)));
    if (!root) {
      KCOLL_RETURN_IF_ERROR(res.transport.Send(group.ranks[p - 1], result + at, length(c) * elem, tag).status());
    }
  }
  return res.transport.WaitAll();
}

absl::Status ChainReduce(const CollectiveArgs& args, Resources& res) {
  const Group group = MakeRootedGroup(res.topology.ring, args.root, res.topology.rank);
  const size_t chunk = ChunkElems(args.options, args.type);
  return ChainReduceOnGroup(res, group, args.send, args.recv, args.count, args.type, args.op, chunk, /*tag=*/0);
}

}  // namespace kcoll
