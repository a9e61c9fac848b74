// Linear Scatter (kLinear): block r of the root's send buffer lands in rank r's receive buffer. The root posts all
// n-1 sends at once, straight from its buffer, and copies its own block; every other rank makes one transfer with
// the root. Gather run backwards. In place (recv == send + root * count on the root) the root's block stays.
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/local_copy.h"

namespace kcoll {

absl::Status LinearScatter(const CollectiveArgs& args, Resources& res) {
  const int n = res.topology.nranks, r = res.topology.rank;
  const size_t bytes = args.count * DataTypeSize(args.type);
  if (bytes == 0) return absl::OkStatus();
  if (r != args.root) {
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(args.root, args.recv, bytes, /*tag=*/0).status());
    return res.transport.WaitAll();
  }
  const char* in = static_cast<const char*>(args.send);
  for (int to = 0; to < n; ++to) {
    if (to != r) KCOLL_RETURN_IF_ERROR(res.transport.Send(to, in + to * bytes, bytes, /*tag=*/0).status());
  }
  KCOLL_RETURN_IF_ERROR(CopyUnlessSame(res.kernels, args.recv, in + r * bytes, bytes));
  return res.transport.WaitAll();
}

}  // namespace kcoll
