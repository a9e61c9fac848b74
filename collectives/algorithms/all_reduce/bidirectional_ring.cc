// Bidirectional ring AllReduce.
//
// A ring AllReduce only uses one direction of each link: rank i sends to i+1 and receives from i-1. Here the first
// half of the buffer goes around the ring clockwise and the second half counter-clockwise (the same ranks in the
// reverse order), at the same time and with different tags, so every link carries traffic both ways and each
// direction moves half the data: on full-duplex links the time of a ring AllReduce of half the buffer.
//
// Each direction is the sliced ring schedule of sliced_ring.cc (chunk_bytes per block, 512 KiB by default), and
// the two are advanced in turn, one receive each. Each rank still sends 2(n-1)/n of the buffer in total.
#include <algorithm>

#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/chunking.h"
#include "collectives/algorithms/engines/group.h"
#include "collectives/algorithms/engines/sliced_ring.h"

namespace kcoll {

absl::Status BidirectionalRingAllReduce(const CollectiveArgs& args, Resources& res) {
  std::vector<int> order = res.topology.ring;
  const Group clockwise = MakeGroup(order, res.topology.rank);
  std::reverse(order.begin(), order.end());
  const Group counter_clockwise = MakeGroup(order, res.topology.rank);
  return AllReduceSharesOnRings(args, res, {clockwise, counter_clockwise}, ChunkElems(args.options, args.type));
}

}  // namespace kcoll
