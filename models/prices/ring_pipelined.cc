// ring_pipelined (all_reduce; schedule: collectives/algorithms/all_reduce/ring_pipelined.cc): `channels` rings run at
// once, each on S/channels; every ring round of m = S/(n channels) bytes per channel is cut into chunks of
// chunk_bytes (the last one partial) so that receiving chunk j+1 overlaps reducing chunk j. A round is a small
// pipeline (cost_model.h, "Pipelines") whose stages are moving one chunk of every channel and, in reducing rounds,
// reducing them. Rounds do not overlap each other. The channels share the intra-node links of the ring and spread
// their inter-node hops over the node's NICs, so channels pay off across nodes with several NICs, and chunks pay off
// when gamma > 0 (each extra chunk costs a latency). With one channel and m <= chunk_bytes it is exactly `ring`. A
// call runs one channel per whole slice of n chunks, up to the communicator's channels (CostModel::RingChannels, as
// the library's DefaultRingChannels). Working set (measured curves): the AllReduce runs in slices of n chunks per
// channel, so its AllGather rounds forward blocks reduced moments before and are priced with the slice as working
// set; its ReduceScatter rounds, which read the buffer from memory, with the whole buffer.
//
// cost all_reduce: 2(n-1) m alpha + 2(n-1)/n S beta + (n-1)/n S gamma, m = ceil(S / (n chunk_bytes)) slices per channel
#include "models/prices/rounds.h"

namespace kcoll {
namespace models {

void PriceRingPipelined(PriceBuilder& b) {
  const RingRounds rounds = RingRoundsOf(b.collective(), b.ranks());
  b.PipelinedRing(rounds.reducing, rounds.copying);
}

}  // namespace models
}  // namespace kcoll
