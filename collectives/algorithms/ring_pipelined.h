#ifndef KCOLL_COLLECTIVES_ALGORITHMS_RING_PIPELINED_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_RING_PIPELINED_H_

#include <cstddef>

#include "collectives/algorithms/algorithm.h"

namespace kcoll {

// Channels used when AlgorithmOptions::nchannels is 0, for a buffer of `bytes` on `nranks` ranks.
int DefaultRingChannels(size_t bytes, int nranks);

// NCCL-style ring AllReduce: the buffer split over channels, each channel's share pipelined in chunks.
absl::Status RingPipelinedAllReduce(const CollectiveArgs& args, Resources& res);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_RING_PIPELINED_H_
