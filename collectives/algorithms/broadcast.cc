// Broadcast: the root's `count` elements end up in every rank's receive buffer. Both schedules follow the
// topology's ring order starting at the root, so that a node's ranks are served together.
//
// Binomial tree (kTree), the topology's binomial tree rooted at the root (Topology::BinomialTreeRootedAt; graph.h):
// each rank receives the whole buffer from its parent, then sends it to its children, largest subtree first. The
// number of ranks holding the data doubles every round:
//   T = ceil(log2 n) (alpha + N beta)       (N = count * elem)
// Few rounds, but every round carries the whole buffer: the choice for small buffers.
//
// Pipelined chain (kChain). The ranks form a chain root -> 1 -> ... -> n-1 and the buffer is cut into stages of
// `chunk_bytes` (AlgorithmOptions; chunking.h's kDefaultChunkBytes when 0). Each rank forwards stage c as soon as it
// has received it, while stage c+1 is already arriving, so after the pipeline fills every link is busy:
//   T = (n - 2 + k) (alpha + (N/k) beta)    (k = ceil(N / chunk_bytes) stages)
// which tends to N beta for k >> n: the choice for large buffers.
//
// Linear (kLinear). The root posts a send of the whole buffer to every other rank at once:
//   T = alpha + (n-1) N beta                (the root's link carries n-1 copies)
// Only for few ranks or as a baseline.
//
// The root sends straight from its send buffer and copies it to its receive buffer unless in place (send == recv).
#include "collectives/algorithms/broadcast.h"

#include <algorithm>
#include <vector>

#include "base/status_macros.h"
#include "collectives/algorithms/chunking.h"
#include "collectives/algorithms/rooted_group.h"

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

absl::Status ChainBroadcastOnGroup(Resources& res, const Group& group, const void* root_src, void* buffer, size_t bytes,
                                   size_t chunk_bytes, int tag) {
  const int n = group.size(), p = group.index;
  if (bytes == 0 || n == 1) return absl::OkStatus();
  const bool has_prev = p > 0, has_next = p < n - 1;
  const size_t stages = (bytes + chunk_bytes - 1) / chunk_bytes;
  auto offset = [&](size_t c) { return c * chunk_bytes; };
  auto length = [&](size_t c) { return std::min(chunk_bytes, bytes - c * chunk_bytes); };
  char* buf = static_cast<char*>(buffer);
  const char* src = has_prev ? buf : static_cast<const char*>(root_src);

  std::vector<Transport::Request> arrivals(stages);
  if (has_prev) {
    KCOLL_ASSIGN_OR_RETURN(arrivals[0], res.transport.Recv(group.ranks[p - 1], buf, length(0), tag));
  }
  for (size_t c = 0; c < stages; ++c) {
    if (has_prev) {
      if (c + 1 < stages) {
        KCOLL_ASSIGN_OR_RETURN(arrivals[c + 1],
                               res.transport.Recv(group.ranks[p - 1], buf + offset(c + 1), length(c + 1), tag));
      }
      KCOLL_RETURN_IF_ERROR(res.transport.Wait(arrivals[c]));
    }
    if (has_next) {
      KCOLL_RETURN_IF_ERROR(res.transport.Send(group.ranks[p + 1], src + offset(c), length(c), tag).status());
    }
  }
  return res.transport.WaitAll();
}

namespace {

absl::Status RootCopy(const CollectiveArgs& args, Resources& res) {
  if (res.topology.rank != args.root || args.send == args.recv || args.count == 0) return absl::OkStatus();
  return res.kernels.Copy(args.recv, args.send, args.count * DataTypeSize(args.type));
}

}  // namespace

absl::Status TreeBroadcast(const CollectiveArgs& args, Resources& res) {
  const size_t bytes = args.count * DataTypeSize(args.type);
  if (bytes > 0) {
    const Tree rooted = args.root == 0 ? Tree() : res.topology.BinomialTreeRootedAt(args.root);
    const Tree& tree = args.root == 0 ? res.topology.binomial_tree : rooted;
    KCOLL_RETURN_IF_ERROR(BroadcastDownTree(res, tree, args.send, args.recv, bytes, /*tag=*/0));
  }
  return RootCopy(args, res);
}

absl::Status ChainBroadcast(const CollectiveArgs& args, Resources& res) {
  const Group group = MakeRootedGroup(res.topology.ring, args.root, res.topology.rank);
  const size_t elem = DataTypeSize(args.type);
  const size_t chunk_bytes = ChunkElems(args.options, args.type) * elem;
  KCOLL_RETURN_IF_ERROR(
      ChainBroadcastOnGroup(res, group, args.send, args.recv, args.count * elem, chunk_bytes, /*tag=*/0));
  return RootCopy(args, res);
}

absl::Status LinearBroadcast(const CollectiveArgs& args, Resources& res) {
  const int n = res.topology.nranks, me = res.topology.rank;
  const size_t bytes = args.count * DataTypeSize(args.type);
  if (bytes == 0) return absl::OkStatus();
  if (me != args.root) {
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(args.root, args.recv, bytes, /*tag=*/0).status());
    return res.transport.WaitAll();
  }
  for (int to = 0; to < n; ++to) {
    if (to != me) KCOLL_RETURN_IF_ERROR(res.transport.Send(to, args.send, bytes, /*tag=*/0).status());
  }
  KCOLL_RETURN_IF_ERROR(RootCopy(args, res));
  return res.transport.WaitAll();
}

}  // namespace kcoll
