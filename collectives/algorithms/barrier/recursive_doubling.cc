// Dissemination Barrier (kRecursiveDoubling, the default): no rank leaves before every rank has entered; all
// messages are empty, only their arrival matters. In round k (d = 1, 2, 4, ... < n) rank r signals rank r+d and
// waits for the signal of rank r-d (mod n). After round k a rank has heard, directly or through others, from the 2d
// ranks before it, so after ceil(log2 n) rounds it has heard from all. Any n, every rank busy every round.
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/partition.h"

namespace kcoll {

absl::Status DisseminationBarrier(const CollectiveArgs& /*args*/, Resources& res) {
  const int n = res.topology.nranks, r = res.topology.rank;
  for (int d = 1; d < n; d *= 2) {
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(Mod(r - d, n), nullptr, 0, /*tag=*/0).status());
    KCOLL_RETURN_IF_ERROR(res.transport.Send(Mod(r + d, n), nullptr, 0, /*tag=*/0).status());
    KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
  }
  return absl::OkStatus();
}

}  // namespace kcoll
