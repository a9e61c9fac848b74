#ifndef KCOLL_COLLECTIVES_ALGORITHMS_ALL_REDUCE_RING_PIPELINED_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_ALL_REDUCE_RING_PIPELINED_H_

#include <cstddef>

#include "collectives/algorithms/algorithm.h"

namespace kcoll {

// Channels used when AlgorithmOptions::nchannels is 0, for a buffer of `bytes` on `nranks` ranks of a communicator
// with `topology_channels` rings: all of them, but no more than give every channel a full slice (nranks chunks of
// chunk_bytes) of work, and at least one.
int DefaultRingChannels(size_t bytes, int nranks, size_t chunk_bytes, int topology_channels);

// NCCL-style ring AllReduce: the buffer split over channels, each channel's share pipelined in chunks.
absl::Status RingPipelinedAllReduce(const CollectiveArgs& args, Resources& res);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_ALL_REDUCE_RING_PIPELINED_H_
