#include "collectives/algorithms/engines/v_blocks.h"

#include "base/status_macros.h"
#include "collectives/algorithms/engines/partition.h"

namespace kcoll {

absl::Status PostReceivesFromEveryPeer(const CollectiveArgs& args, Resources& res) {
  const int n = res.topology.nranks, r = res.topology.rank;
  for (int s = 1; s < n; ++s) {
    const int from = Mod(r - s, n);
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(from, RecvBlock(args, from), RecvBytes(args, from), /*tag=*/0).status());
  }
  return absl::OkStatus();
}

}  // namespace kcoll
