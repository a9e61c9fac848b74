// Binomial-tree Barrier (kTree). Every rank waits for its children in the topology's binomial tree (rooted at rank
// 0, over the ring order; base/graph.h), signals its parent, then waits for its parent's release and releases its
// children: twice the rounds of dissemination.
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"

namespace kcoll {

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

}  // namespace kcoll
