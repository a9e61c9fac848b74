// Reduce: the reduction over all ranks of their `count` elements ends up in the root's receive buffer.
// Broadcast's schedules, reversed, over the same orders.
//
// Binomial tree (kTree), the topology's binomial tree rooted at the root (Topology::BinomialTreeRootedAt; graph.h).
// Each rank posts receives from all its children at once, combines their partial results with its own
// contribution as they complete (nearest child first: its subtree is the smallest, so it finishes first), and sends
// the result to its parent. The number of partial results halves every round:
//   T = ceil(log2 n) (alpha + N beta + N gamma)     (N = count * elem; gamma: reduction time per byte)
// The choice for small buffers.
//
// Pipelined chain (kChain). The ranks form a chain n-1 -> ... -> 1 -> root and the buffer is cut into stages of
// `chunk_bytes` (AlgorithmOptions; chunking.h's kDefaultChunkBytes when 0). Each rank receives stage c of the partial
// result from upstream, combines it with its own stage c and forwards it downstream while stage c+1 arrives:
//   T = (n - 2 + k) (alpha + (N/k) (beta + gamma))  (k = ceil(N / chunk_bytes) stages)
// The choice for large buffers.
//
// Linear (kLinear). Every rank sends its contribution to the root, which posts all n-1 receives at once and
// folds them into its own contribution in rank order as they complete:
//   T = alpha + (n-1) N (beta + gamma)       (the root's link and reductions carry everything)
// Only for few ranks or as a baseline.
//
// Partial results live in scratch on every rank but the root, which reduces straight into its receive buffer; the
// receive buffers of the other ranks are never written. In place (send == recv on the root) needs no copy.
#include "collectives/algorithms/reduce.h"

#include <algorithm>
#include <vector>

#include "base/status_macros.h"
#include "collectives/algorithms/broadcast.h"
#include "collectives/algorithms/chunking.h"
#include "collectives/algorithms/rooted_group.h"

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

absl::Status ChainReduceOnGroup(Resources& res, const Group& group, const void* send, void* recv, size_t count,
                                DataType type, ReduceOp op, size_t chunk_elements, int tag) {
  const int n = group.size(), p = group.index;
  const size_t elem = DataTypeSize(type);
  const char* in = static_cast<const char*>(send);
  if (count == 0) return absl::OkStatus();
  if (n == 1) return send == recv ? absl::OkStatus() : res.kernels.Copy(recv, send, count * elem);
  const size_t stages = (count + chunk_elements - 1) / chunk_elements;
  auto first = [&](size_t c) { return c * chunk_elements; };
  auto length = [&](size_t c) { return std::min(chunk_elements, count - c * chunk_elements); };
  const bool has_upstream = p < n - 1, root = p == 0;

  if (!has_upstream) {  // the far end of the chain only sends its own contribution
    for (size_t c = 0; c < stages; ++c) {
      KCOLL_RETURN_IF_ERROR(
          res.transport.Send(group.ranks[p - 1], in + first(c) * elem, length(c) * elem, tag).status());
    }
    return res.transport.WaitAll();
  }
  KCOLL_ASSIGN_OR_RETURN(void* incoming_ptr, res.kernels.Scratch(0, count * elem));
  char* incoming = static_cast<char*>(incoming_ptr);
  // Downstream ranks reduce in place in the scratch they received into and forward it from there.
  char* result = root ? static_cast<char*>(recv) : incoming;
  const int upstream = group.ranks[p + 1];
  std::vector<Transport::Request> arrivals(stages);
  KCOLL_ASSIGN_OR_RETURN(arrivals[0], res.transport.Recv(upstream, incoming, length(0) * elem, tag));
  for (size_t c = 0; c < stages; ++c) {
    if (c + 1 < stages) {
      KCOLL_ASSIGN_OR_RETURN(arrivals[c + 1],
                             res.transport.Recv(upstream, incoming + first(c + 1) * elem, length(c + 1) * elem, tag));
    }
    KCOLL_RETURN_IF_ERROR(res.transport.Wait(arrivals[c]));
    const size_t at = first(c) * elem;
    KCOLL_RETURN_IF_ERROR(res.kernels.Reduce(op, type, result + at, in + at, incoming + at, length(c)));
    if (!root) {
      KCOLL_RETURN_IF_ERROR(res.transport.Send(group.ranks[p - 1], result + at, length(c) * elem, tag).status());
    }
  }
  return res.transport.WaitAll();
}

absl::Status TreeReduce(const CollectiveArgs& args, Resources& res) {
  const Tree rooted = args.root == 0 ? Tree() : res.topology.BinomialTreeRootedAt(args.root);
  const Tree& tree = args.root == 0 ? res.topology.binomial_tree : rooted;
  return ReduceUpTree(res, tree, args.send, args.recv, args.count, args.type, args.op, /*tag=*/0);
}

absl::Status ChainReduce(const CollectiveArgs& args, Resources& res) {
  const Group group = MakeRootedGroup(res.topology.ring, args.root, res.topology.rank);
  const size_t chunk = ChunkElems(args.options, args.type);
  return ChainReduceOnGroup(res, group, args.send, args.recv, args.count, args.type, args.op, chunk, /*tag=*/0);
}

absl::Status LinearReduce(const CollectiveArgs& args, Resources& res) {
  const int n = res.topology.nranks, me = res.topology.rank;
  const size_t bytes = args.count * DataTypeSize(args.type);
  if (bytes == 0) return absl::OkStatus();
  if (me != args.root) {
    KCOLL_RETURN_IF_ERROR(res.transport.Send(args.root, args.send, bytes, /*tag=*/0).status());
    return res.transport.WaitAll();
  }
  if (n == 1) return args.send == args.recv ? absl::OkStatus() : res.kernels.Copy(args.recv, args.send, bytes);
  KCOLL_ASSIGN_OR_RETURN(void* incoming_ptr, res.kernels.Scratch(0, (n - 1) * bytes));
  char* incoming = static_cast<char*>(incoming_ptr);
  std::vector<Transport::Request> arrivals;
  for (int from = 0; from < n; ++from) {
    if (from == me) continue;
    KCOLL_ASSIGN_OR_RETURN(Transport::Request r,
                           res.transport.Recv(from, incoming + arrivals.size() * bytes, bytes, /*tag=*/0));
    arrivals.push_back(r);
  }
  const void* partial = args.send;
  for (size_t i = 0; i < arrivals.size(); ++i) {
    KCOLL_RETURN_IF_ERROR(res.transport.Wait(arrivals[i]));
    KCOLL_RETURN_IF_ERROR(res.kernels.Reduce(args.op, args.type, args.recv, partial, incoming + i * bytes, args.count));
    partial = args.recv;
  }
  return res.transport.WaitAll();
}

}  // namespace kcoll
