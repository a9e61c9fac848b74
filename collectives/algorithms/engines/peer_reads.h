// What the zero-copy schedules (the `direct` algorithm of each collective) share: the peers' registered buffers of
// this call, a reduction that reads every rank's buffer in place, and the node barrier that ends each of them.
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_PEER_READS_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_PEER_READS_H_

#include <cstddef>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "collectives/algorithms/algorithm.h"

namespace kcoll {

// The peers' buffers of this call, or FailedPrecondition saying why the call cannot run zero-copy.
absl::StatusOr<const PeerMemory::Buffers*> PeerBuffers(const CollectiveArgs& args, const Resources& resources);

// dst[0, count) = op over every rank p of send_p[at, at + count elements), this rank's own buffer first (likely in
// cache); `at` in bytes. Needs at least two ranks.
absl::Status ReduceFromEveryRank(const CollectiveArgs& args, Resources& resources, const PeerMemory::Buffers& peers,
                                 unsigned char* dst, size_t at, size_t count);

// Waits for the kernels of this rank, then for every rank of the node.
absl::Status NodeBarrier(Resources& resources);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_PEER_READS_H_
