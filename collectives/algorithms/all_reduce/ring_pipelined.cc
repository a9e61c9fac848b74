// Pipelined multi-channel ring AllReduce (NCCL's ring algorithm).
//
// The buffer is split into `nchannels` contiguous shares (sizes differ by at most one element), one per channel.
// Every channel is an independent ring (the topology's ring of that channel, Topology::ChannelRing: the same cycle
// entered at a different rank of each node, see graph.h) with its own message tag and its own pair of scratch
// buffers, and runs the sliced ring schedule of sliced_ring.cc on its share: the share is processed in
// slices of n * chunk elements, each slice a full ring ReduceScatter + AllGather of n blocks of at most one chunk.
// The channels are advanced in turn, one receive each, so their messages are in flight at the same time.
//
// Why slices: the block being received, the block of `in` it is reduced with and the `out` block it is reduced
// into are all chunk-sized, so a reduction finds its operands in cache instead of streaming buffer-sized scratch
// through memory; and each rank starts forwarding after one chunk instead of one n-th of the buffer, which keeps
// the ring busy. Inside a channel the receive of the next block is posted before the current one is reduced
// (double-buffered scratch), the overlap NCCL gets from its FIFO of steps.
//
// Defaults: chunk_bytes 512 KiB (chunking.h: a cache-sized stage, big enough to amortise per-message costs), and
// the communicator's channels (1 on MPI, 2 on NCCL, unless CommunicatorOptions::nchannels or $KCOLL_NCHANNELS say
// otherwise), as many as get a full slice of work each, at least one (DefaultRingChannels). On a host transport one
// thread drives every channel, so a second channel only interleaves its messages with the first's (see
// kHostDefaultChannels); channels exist for transports that progress them independently. nchannels
// is capped at Topology::kMaxChannels (32, NCCL's limit). Each rank sends 2(n-1)/n of the buffer, the ring optimum, in
// 2(n-1) steps per slice.
#include "collectives/algorithms/all_reduce/ring_pipelined.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "collectives/algorithms/engines/chunking.h"
#include "collectives/algorithms/engines/group.h"
#include "collectives/algorithms/engines/sliced_ring.h"

namespace kcoll {

int DefaultRingChannels(size_t bytes, int nranks, size_t chunk_bytes, int topology_channels) {
  const size_t slice = chunk_bytes * static_cast<size_t>(nranks);
  const size_t full_slices = slice == 0 ? 0 : bytes / slice;
  return static_cast<int>(std::max<size_t>(1, std::min<size_t>(topology_channels, full_slices)));
}

absl::Status RingPipelinedAllReduce(const CollectiveArgs& args, Resources& res) {
  const size_t elem = DataTypeSize(args.type);
  int nchannels = args.options.nchannels;
  if (nchannels < 0 || nchannels > Topology::kMaxChannels) {
    return absl::InvalidArgumentError(absl::StrCat("ring_pipelined: nchannels ", nchannels, " is outside [0, ",
                                                   Topology::kMaxChannels, "] (0: default)"));
  }
  const size_t chunk = ChunkElems(args.options, args.type);
  if (nchannels == 0) {
    nchannels = DefaultRingChannels(args.count * elem, res.topology.nranks, chunk * elem, res.topology.nchannels());
  }

  std::vector<Group> rings;
  for (int c = 0; c < nchannels; ++c) rings.push_back(MakeGroup(res.topology.ChannelRing(c), res.topology.rank));
  return AllReduceSharesOnRings(args, res, rings, chunk);
}

}  // namespace kcoll
