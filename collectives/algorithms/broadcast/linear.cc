// Linear Broadcast (kLinear). The root posts a send of the whole buffer to every other rank at once: its link
// carries n-1 copies. Only for few ranks or as a baseline.
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/local_copy.h"

namespace kcoll {

absl::Status LinearBroadcast(const CollectiveArgs& args, Resources& res) {
  const int n = res.topology.nranks, me = res.topology.rank;
  const size_t bytes = args.count * DataTypeSize(args.type);
  if (bytes == 0) return absl::OkStatus();
  if (me != args.root) {
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(args.root, args.recv, bytes, /*tag=*/0).status());
    return res.transport.WaitAll();
  }
  for (int to = 0; to < n; ++to) {
    if (to != me) KCOLL_RETURN_IF_ERROR(res.transport.Send(to, args.send, bytes, /*tag=*/0).status());
  }
  KCOLL_RETURN_IF_ERROR(CopyOnRoot(args, res));
  return res.transport.WaitAll();
}

}  // namespace kcoll
