// Binomial-tree Broadcast (kTree), on the topology's binomial tree rooted at the root (Topology::BinomialTreeRootedAt;
// base/graph.h): each rank receives the whole buffer from its parent, then sends it to its children, largest subtree
// first. The number of ranks holding the data doubles every round; every round carries the whole buffer: the
// choice for small buffers. The root sends straight from its send buffer and copies it to its receive buffer unless
// in place (send == recv).
#include "collectives/algorithms/broadcast/tree.h"

#include <vector>

#include "base/status_macros.h"
#include "collectives/algorithms/engines/local_copy.h"

namespace kcoll {

absl::Status BroadcastDownTree(Resources& res, const Tree& tree, const void* root_src, void* buffer, size_t bytes,
                               int tag) {
  const int me = res.topology.rank;
  const void* src = root_src;
  if (tree.Parent(me) >= 0) {
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(tree.Parent(me), buffer, bytes, tag).status());
    KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
    src = buffer;
  }
  const std::vector<int>& children = tree.Children(me);
  for (auto child = children.rbegin(); child != children.rend(); ++child) {  // listed nearest first
    KCOLL_RETURN_IF_ERROR(res.transport.Send(*child, src, bytes, tag).status());
  }
  return res.transport.WaitAll();
}

absl::Status TreeBroadcast(const CollectiveArgs& args, Resources& res) {
  const size_t bytes = args.count * DataTypeSize(args.type);
  if (bytes > 0) {
    const Tree rooted = args.root == 0 ? Tree() : res.topology.BinomialTreeRootedAt(args.root);
    const Tree& tree = args.root == 0 ? res.topology.binomial_tree : rooted;
    KCOLL_RETURN_IF_ERROR(BroadcastDownTree(res, tree, args.send, args.recv, bytes, /*tag=*/0));
  }
  return CopyOnRoot(args, res);
}

}  // namespace kcoll
