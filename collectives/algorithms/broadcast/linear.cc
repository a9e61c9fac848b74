// Linear Broadcast (kLinear). The root posts a send of the whole buffer to every other rank at once: its link
// carries n-1 copies. Only for few ranks or as a baseline.
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/linear_rooted.h"
#include "collectives/algorithms/engines/local_copy.h"

namespace kcoll {

absl::Status LinearBroadcast(const CollectiveArgs& args, Resources& res) {
  return LinearRooted(args, res, LeafBlock::kReceivedFromRoot, [&](size_t bytes) -> absl::Status {
    for (int to = 0; to < res.topology.nranks; ++to) {
      if (to != args.root) KCOLL_RETURN_IF_ERROR(res.transport.Send(to, args.send, bytes, /*tag=*/0).status());
    }
    return CopyOnRoot(args, res);
  });
}

}  // namespace kcoll
