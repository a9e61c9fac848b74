#include "collectives/algorithms/direct.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "collectives/algorithms/partition.h"

namespace kcoll {
namespace {

// AllReduce's pipeline step (CallOptions::tuning.chunk_bytes overrides it): a chunk reduced by one rank is copied by
// the others while it is in that rank's cache.
constexpr size_t kDirectChunkBytes = 128 << 10;

// The peers' buffers of this call, or why the call cannot run zero-copy.
absl::StatusOr<const PeerMemory::Buffers*> PeerBuffers(const CollectiveArgs& args, const Resources& resources) {
  if (resources.peer_memory == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        CollectiveName(args.collective),
        " (direct): needs a communicator whose ranks share one node over the shm transport, and buffers from "
        "Communicator::Allocate"));
  }
  if (resources.peer_buffers == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(CollectiveName(args.collective),
                     " (direct): the buffers of some rank are not registered (every rank must pass buffers from "
                     "Communicator::Allocate)"));
  }
  return resources.peer_buffers;
}

// dst[0, count) = op over every rank p of send_p[at, at + count elements), this rank's own buffer first (likely in
// cache); `at` in bytes. Needs at least two ranks.
absl::Status ReduceFromEveryRank(const CollectiveArgs& args, Resources& resources, const PeerMemory::Buffers& peers,
                                 unsigned char* dst, size_t at, size_t count) {
  const int n = resources.peer_memory->size(), me = resources.peer_memory->rank();
  Kernels& kernels = resources.kernels;
  KCOLL_RETURN_IF_ERROR(
      kernels.Reduce(args.op, args.type, dst, peers.send[me] + at, peers.send[(me + 1) % n] + at, count));
  for (int k = 2; k < n; ++k) {
    KCOLL_RETURN_IF_ERROR(kernels.Reduce(args.op, args.type, dst, dst, peers.send[(me + k) % n] + at, count));
  }
  return absl::OkStatus();
}

// Waits for the kernels of this rank, then for every rank of the node.
absl::Status Barrier(Resources& resources) {
  resources.kernels.Fence();
  return resources.peer_memory->Barrier();
}

}  // namespace

absl::Status DirectAllReduce(const CollectiveArgs& args, Resources& resources) {
  KCOLL_ASSIGN_OR_RETURN(const PeerMemory::Buffers* peers, PeerBuffers(args, resources));
  Kernels& kernels = resources.kernels;
  PeerMemory& memory = *resources.peer_memory;
  const int n = memory.size(), me = memory.rank();
  const size_t elem = DataTypeSize(args.type);
  unsigned char* recv = peers->recv[me];
  if (n == 1) {
    if (args.send != args.recv) KCOLL_RETURN_IF_ERROR(kernels.Copy(recv, peers->send[me], args.count * elem));
    return Barrier(resources);
  }
  // Every block is cut into the same number of chunks (the first block is the largest), so that step c means the
  // same chunk on every rank.
  const size_t chunk_bytes = args.options.chunk_bytes > 0 ? args.options.chunk_bytes : kDirectChunkBytes;
  const size_t chunk = std::max<size_t>(1, chunk_bytes / elem);
  const size_t largest = BlockOf(args.count, n, 0).count;
  const size_t chunks = (largest + chunk - 1) / chunk;
  const Block mine = BlockOf(args.count, n, me);
  for (size_t c = 0; c < chunks; ++c) {
    // Chunk c of this rank's block, reduced from every rank's send buffer.
    const size_t begin = std::min(mine.count, c * chunk), end = std::min(mine.count, begin + chunk);
    if (end > begin) {
      const size_t at = (mine.offset + begin) * elem;
      KCOLL_RETURN_IF_ERROR(ReduceFromEveryRank(args, resources, *peers, recv + at, at, end - begin));
    }
    kernels.Fence();
    memory.Publish(static_cast<uint32_t>(c + 1));
    // Chunk c of every other block, from the rank that reduced it, while it is still in that rank's cache.
    for (int k = 1; k < n; ++k) {
      const int p = (me + k) % n;
      const Block block = BlockOf(args.count, n, p);
      const size_t from = std::min(block.count, c * chunk), to = std::min(block.count, from + chunk);
      if (to == from) continue;
      KCOLL_RETURN_IF_ERROR(memory.WaitFor(p, static_cast<uint32_t>(c + 1)));
      const size_t at = (block.offset + from) * elem;
      KCOLL_RETURN_IF_ERROR(kernels.Copy(recv + at, peers->recv[p] + at, (to - from) * elem));
    }
  }
  return Barrier(resources);
}

absl::Status DirectReduceScatter(const CollectiveArgs& args, Resources& resources) {
  KCOLL_ASSIGN_OR_RETURN(const PeerMemory::Buffers* peers, PeerBuffers(args, resources));
  Kernels& kernels = resources.kernels;
  const int n = resources.peer_memory->size(), me = resources.peer_memory->rank();
  const size_t bytes = args.count * DataTypeSize(args.type);
  const size_t at = static_cast<size_t>(me) * bytes;
  unsigned char* recv = peers->recv[me];
  if (bytes > 0) {
    if (n == 1) {
      if (recv != peers->send[me]) KCOLL_RETURN_IF_ERROR(kernels.Copy(recv, peers->send[me], bytes));
    } else {
      KCOLL_RETURN_IF_ERROR(ReduceFromEveryRank(args, resources, *peers, recv, at, args.count));
    }
  }
  return Barrier(resources);
}

absl::Status DirectAllGather(const CollectiveArgs& args, Resources& resources) {
  KCOLL_ASSIGN_OR_RETURN(const PeerMemory::Buffers* peers, PeerBuffers(args, resources));
  const int n = resources.peer_memory->size(), me = resources.peer_memory->rank();
  const size_t bytes = args.count * DataTypeSize(args.type);
  unsigned char* recv = peers->recv[me];
  if (bytes > 0) {
    for (int k = 0; k < n; ++k) {
      const int p = (me + k) % n;
      unsigned char* dst = recv + static_cast<size_t>(p) * bytes;
      if (dst == peers->send[p]) continue;  // this rank's own block, in place
      KCOLL_RETURN_IF_ERROR(resources.kernels.Copy(dst, peers->send[p], bytes));
    }
  }
  return Barrier(resources);
}

absl::Status DirectBroadcast(const CollectiveArgs& args, Resources& resources) {
  KCOLL_ASSIGN_OR_RETURN(const PeerMemory::Buffers* peers, PeerBuffers(args, resources));
  const int me = resources.peer_memory->rank();
  const size_t bytes = args.count * DataTypeSize(args.type);
  // On one node, the root's rank within the node is its rank.
  const unsigned char* source = peers->send[args.root];
  if (bytes > 0 && peers->recv[me] != source) {
    KCOLL_RETURN_IF_ERROR(resources.kernels.Copy(peers->recv[me], source, bytes));
  }
  return Barrier(resources);
}

}  // namespace kcoll
