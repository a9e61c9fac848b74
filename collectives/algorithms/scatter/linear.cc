// Linear Scatter (kLinear): block r of the root's send buffer lands in rank r's receive buffer. The root posts all
// n-1 sends at once, straight from its buffer, and copies its own block; every other rank makes one transfer with
// the root. Gather run backwards. In place (recv == send + root * count on the root) the root's block stays.
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/linear_rooted.h"
#include "collectives/algorithms/engines/local_copy.h"

namespace kcoll {

absl::Status LinearScatter(const CollectiveArgs& args, Resources& res) {
  return LinearRooted(args, res, LeafBlock::kReceivedFromRoot, [&](size_t bytes) -> absl::Status {
    const char* in = static_cast<const char*>(args.send);
    for (int to = 0; to < res.topology.nranks; ++to) {
      if (to != args.root) KCOLL_RETURN_IF_ERROR(res.transport.Send(to, in + to * bytes, bytes, /*tag=*/0).status());
    }
    return CopyUnlessSame(res.kernels, args.recv, in + args.root * bytes, bytes);
  });
}

}  // namespace kcoll
