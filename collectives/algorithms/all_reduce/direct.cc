// Zero-copy AllReduce on registered buffers (the `direct` algorithm; Communicator::Allocate): the ranks of one node
// read each other's buffers in place, with no transfer. Rank r reduces block r of the result straight from every
// rank's send buffer, chunk by chunk, and publishes each chunk it completed; the other ranks copy that chunk into
// their own result while it is still in rank r's cache. Every block is cut into the same number of chunks (the
// first block is the largest), so step c means the same chunk on every rank. A node barrier ends the call. Not
// priced by the model: `auto` takes it by its own rule on registered buffers (docs/shm.md).
#include <algorithm>

#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/partition.h"
#include "collectives/algorithms/engines/peer_reads.h"

namespace kcoll {
namespace {

// The pipeline step (CallOptions::tuning.chunk_bytes overrides it): a chunk reduced by one rank is copied by the
// others while it is in that rank's cache.
constexpr size_t kDirectChunkBytes = 128 << 10;

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
    return NodeBarrier(resources);
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
      // The copy is not read again in this call: a large result is written around the caches (the reduced chunk
      // above is, by the other ranks, so it is stored normally).
      KCOLL_RETURN_IF_ERROR(kernels.Copy(recv + at, peers->recv[p] + at, (to - from) * elem, args.count * elem));
    }
  }
  return NodeBarrier(resources);
}

}  // namespace kcoll
