// bidirectional_ring (all_reduce; schedule: collectives/algorithms/all_reduce/bidirectional_ring.cc): two rings at
// once, clockwise and counter-clockwise, each on S/2: the ring's number of rounds with messages of S/(2n) on each
// direction. Each rank sends on two links at once; the links are full duplex with a separate link per direction and
// neighbour, so inside a node both halves run at full speed (for n == 2 both rings use the same two links and share
// them; with intra_links_per_rank = 1 the two sends share the rank's one link and the algorithm gains nothing over
// ring), while across nodes the two streams leaving each node share its NICs. Each rank reduces both halves it
// receives (S/n per round). Each direction runs the sliced ring (collectives/algorithms/engines/sliced_ring.cc):
// slices of n chunks, 2n chunk_bytes in all per slice, priced slice by slice: the ReduceScatter rounds, which read
// the slice from memory, with the whole buffer as working set, the AllGather rounds with the slice.
//
// cost all_reduce: each direction a ring AllReduce of S/2, both at once
#include "models/prices/rounds.h"

namespace kcoll {
namespace models {

void PriceBidirectionalRing(PriceBuilder& b) {
  const int64_t n = b.ranks();
  const RingRounds rounds = RingRoundsOf(b.collective(), n);
  std::vector<Transfer> transfers;
  for (int64_t i = 0; i < n; ++i) {
    transfers.push_back({i, (i + 1) % n, 0.5 / n});
    transfers.push_back({i, (i + n - 1) % n, 0.5 / n});
  }
  b.AddRounds(rounds.reducing, transfers, true);
  b.AddRounds(rounds.copying, transfers, false);
  b.InSlices(2.0 * static_cast<double>(n) * b.options().chunk_bytes, /*cold_rounds=*/1);
}

}  // namespace models
}  // namespace kcoll
