// Barrier: no rank leaves before every rank has entered. All messages are empty; only their arrival matters.
//
// Dissemination (kRecursiveDoubling, the default). In round k (d = 1, 2, 4, ... < n) rank r signals rank r+d and
// waits for the signal of rank r-d (mod n). After round k a rank has heard, directly or through others, from the 2d
// ranks before it, so after ceil(log2 n) rounds it has heard from all. Works for any n, every rank busy every round:
//   T = ceil(log2 n) alpha
//
// Binomial tree (kTree). Every rank waits for its children in the topology's binomial tree (rooted at rank 0, over
// the ring order; graph.h), signals its parent, then waits for its parent's release and releases its children:
//   T = 2 ceil(log2 n) alpha
//
// Linear (kLinear). Rank 0 waits for a signal from every other rank, then releases them all:
//   T = 2 alpha + 2 (n-1) o    (o: the root's per-message overhead)
#include "collectives/algorithms/barrier.h"

#include "base/status_macros.h"
#include "collectives/algorithms/partition.h"

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

absl::Status TreeBarrier(const CollectiveArgs& /*args*/, Resources& res) {
  const Tree& tree = res.topology.binomial_tree;
  const int me = res.topology.rank, parent = tree.Parent(me);
  for (int child : tree.Children(me)) KCOLL_RETURN_IF_ERROR(res.transport.Recv(child, nullptr, 0, /*tag=*/0).status());
  KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
  if (parent >= 0) {
    KCOLL_RETURN_IF_ERROR(res.transport.Send(parent, nullptr, 0, /*tag=*/0).status());
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(parent, nullptr, 0, /*tag=*/0).status());
    KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
  }
  for (int child : tree.Children(me)) KCOLL_RETURN_IF_ERROR(res.transport.Send(child, nullptr, 0, /*tag=*/0).status());
  return res.transport.WaitAll();
}

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
