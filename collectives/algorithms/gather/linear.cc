// Linear Gather (kLinear): every rank's `count` elements land, in rank order, in the root's receive buffer. The root
// posts all n-1 receives at once, straight into place, and copies its own block; every other rank makes one transfer
// with the root. The root's link carries everything; the n-1 latencies overlap, since the transfers are posted
// together. In place (send == recv + root * count on the root) the root's own block stays where it is.
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/linear_rooted.h"
#include "collectives/algorithms/engines/local_copy.h"

namespace kcoll {

absl::Status LinearGather(const CollectiveArgs& args, Resources& res) {
  return LinearRooted(args, res, LeafBlock::kSentToRoot, [&](size_t bytes) -> absl::Status {
    char* out = static_cast<char*>(args.recv);
    for (int from = 0; from < res.topology.nranks; ++from) {
      if (from == args.root) continue;
      KCOLL_RETURN_IF_ERROR(res.transport.Recv(from, out + from * bytes, bytes, /*tag=*/0).status());
    }
    return CopyUnlessSame(res.kernels, out + args.root * bytes, args.send, bytes);
  });
}

}  // namespace kcoll
