// Binomial-tree Reduce (kTree), Broadcast's tree reversed: the topology's binomial tree rooted at the root
// (Topology::BinomialTreeRootedAt; base/graph.h). Each rank posts receives from all its children at once, combines
// their partial results with its own contribution as they complete (nearest child first: its subtree is the
// smallest, so it finishes first), and sends the result to its parent. The number of partial results halves every
// round: the choice for small buffers. Partial results live in scratch on every rank but the root, which reduces
// straight into its receive buffer; the receive buffers of the other ranks are never written.
#include "collectives/algorithms/reduce/tree.h"

#include <vector>

#include "base/status_macros.h"

namespace kcoll {

absl::Status ReduceUpTree(Resources& res, const Tree& tree, const void* send, void* recv, size_t count, DataType type,
                          ReduceOp op, int tag) {
  const int me = res.topology.rank;
  const bool root = tree.Parent(me) < 0;
  const size_t bytes = count * DataTypeSize(type);
  const std::vector<int>& children = tree.Children(me);
  if (count == 0) return absl::OkStatus();
  if (children.empty()) {
    if (root) return send == recv ? absl::OkStatus() : res.kernels.Copy(recv, send, bytes);
    KCOLL_RETURN_IF_ERROR(res.transport.Send(tree.Parent(me), send, bytes, tag).status());
    return res.transport.WaitAll();
  }

  const int nchildren = static_cast<int>(children.size());
  KCOLL_ASSIGN_OR_RETURN(void* incoming_ptr, res.kernels.Scratch(1, nchildren * bytes));
  char* incoming = static_cast<char*>(incoming_ptr);
  std::vector<Transport::Request> arrivals(nchildren);
  for (int i = 0; i < nchildren; ++i) {
    KCOLL_ASSIGN_OR_RETURN(arrivals[i], res.transport.Recv(children[i], incoming + i * bytes, bytes, tag));
  }
  void* acc = recv;
  if (!root) {
    KCOLL_ASSIGN_OR_RETURN(acc, res.kernels.Scratch(0, bytes));
  }
  const void* partial = send;
  for (int i = 0; i < nchildren; ++i) {
    KCOLL_RETURN_IF_ERROR(res.transport.Wait(arrivals[i]));
    KCOLL_RETURN_IF_ERROR(res.kernels.Reduce(op, type, acc, partial, incoming + i * bytes, count));
    partial = acc;
  }
  if (root) return res.transport.WaitAll();
  KCOLL_RETURN_IF_ERROR(res.transport.Send(tree.Parent(me), acc, bytes, tag).status());
  return res.transport.WaitAll();
}

absl::Status TreeReduce(const CollectiveArgs& args, Resources& res) {
  const Tree rooted = args.root == 0 ? Tree() : res.topology.BinomialTreeRootedAt(args.root);
  const Tree& tree = args.root == 0 ? res.topology.binomial_tree : rooted;
  return ReduceUpTree(res, tree, args.send, args.recv, args.count, args.type, args.op, /*tag=*/0);
}

}  // namespace kcoll
