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
#include <deque>

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
  const size_t elem = DataTypeSize(args.type);
  const size_t chunk = ChunkElems(args.options, args.type);

  std::deque<SlicedRing> directions;
  for (int d = 0; d < 2; ++d) {
    const Block half = BlockOf(args.count, 2, d);
    const SlicedRing::Spec spec{SlicedRing::Phases::kAllReduce,
                                static_cast<const char*>(args.send) + half.offset * elem,
                                static_cast<char*>(args.recv) + half.offset * elem,
                                half.count,
                                args.type,
                                args.op,
                                /*tag=*/d,
                                /*slice_block_elems=*/chunk,
                                /*scratch_slot=*/2 * d};
    directions.emplace_back(res, d == 0 ? clockwise : counter_clockwise, spec);
  }
  return RunInterleaved(res, {&directions[0], &directions[1]});
}

}  // namespace kcoll
