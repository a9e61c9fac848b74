// Linear Reduce (kLinear). Every rank sends its contribution to the root, which posts all n-1 receives at once and
// folds them into its own contribution in rank order as they complete: the root's link and reductions carry
// everything. Only for few ranks or as a baseline.
#include <vector>

#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/linear_rooted.h"

namespace kcoll {

absl::Status LinearReduce(const CollectiveArgs& args, Resources& res) {
  return LinearRooted(args, res, LeafBlock::kSentToRoot, [&](size_t bytes) -> absl::Status {
    const int n = res.topology.nranks;
    if (n == 1) return args.send == args.recv ? absl::OkStatus() : res.kernels.Copy(args.recv, args.send, bytes);
    KCOLL_ASSIGN_OR_RETURN(void* incoming_ptr, res.kernels.Scratch(0, (n - 1) * bytes));
    char* incoming = static_cast<char*>(incoming_ptr);
    std::vector<Transport::Request> arrivals;
    for (int from = 0; from < n; ++from) {
      if (from == args.root) continue;
      KCOLL_ASSIGN_OR_RETURN(Transport::Request r,
                             res.transport.Recv(from, incoming + arrivals.size() * bytes, bytes, /*tag=*/0));
      arrivals.push_back(r);
    }
    // Folded in rank order as they arrive: the first into the root's own contribution, the rest into recv.
    const void* partial = args.send;
    for (size_t i = 0; i < arrivals.size(); ++i) {
      KCOLL_RETURN_IF_ERROR(res.transport.Wait(arrivals[i]));
      KCOLL_RETURN_IF_ERROR(
          res.kernels.Reduce(args.op, args.type, args.recv, partial, incoming + i * bytes, args.count));
      partial = args.recv;
    }
    return absl::OkStatus();
  });
}

}  // namespace kcoll
