// Linear Gather (kLinear): every rank's `count` elements land, in rank order, in the root's receive buffer. The root
// posts all n-1 receives at once, straight into place, and copies its own block; every other rank makes one transfer
// with the root. The root's link carries everything; the n-1 latencies overlap, since the transfers are posted
// together. In place (send == recv + root * count on the root) the root's own block stays where it is.
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/local_copy.h"

namespace kcoll {

absl::Status LinearGather(const CollectiveArgs& args, Resources& res) {
  const int n = res.topology.nranks, r = res.topology.rank;
  const size_t bytes = args.count * DataTypeSize(args.type);
  if (bytes == 0) return absl::OkStatus();
  if (r != args.root) {
    KCOLL_RETURN_IF_ERROR(res.transport.Send(args.root, args.send, bytes, /*tag=*/0).status());
    return res.transport.WaitAll();
  }
  char* out = static_cast<char*>(args.recv);
  for (int from = 0; from < n; ++from) {
    if (from != r) KCOLL_RETURN_IF_ERROR(res.transport.Recv(from, out + from * bytes, bytes, /*tag=*/0).status());
  }
  KCOLL_RETURN_IF_ERROR(CopyUnlessSame(res.kernels, out + r * bytes, args.send, bytes));
  return res.transport.WaitAll();
}

}  // namespace kcoll
