// Linear Barrier (kLinear). Rank 0 waits for a signal from every other rank, then releases them all: two rounds,
// the root handling 2(n-1) messages.
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"

namespace kcoll {

absl::Status LinearBarrier(const CollectiveArgs& /*args*/, Resources& res) {
  const int n = res.topology.nranks, r = res.topology.rank;
  if (r != 0) {
    KCOLL_RETURN_IF_ERROR(res.transport.Send(0, nullptr, 0, /*tag=*/0).status());
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(0, nullptr, 0, /*tag=*/0).status());
    return res.transport.WaitAll();
  }
  for (int from = 1; from < n; ++from) KCOLL_RETURN_IF_ERROR(res.transport.Recv(from, nullptr, 0, /*tag=*/0).status());
  KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
  for (int to = 1; to < n; ++to) KCOLL_RETURN_IF_ERROR(res.transport.Send(to, nullptr, 0, /*tag=*/0).status());
  return res.transport.WaitAll();
}

}  // namespace kcoll
