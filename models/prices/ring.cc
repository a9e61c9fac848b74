// ring (all_reduce, reduce_scatter(v), all_gather(v); schedules: collectives/algorithms/<collective>/ring.cc): rank i
// sends to i+1 mod n. ReduceScatter: n-1 rounds of S/n, each reducing what arrives; AllGather: n-1 rounds of S/n;
// AllReduce: the two in sequence. Each rank sends 2(n-1)/n of S in all, the bandwidth optimum, in 2(n-1) latency-bound
// rounds.
//
// cost all_reduce: 2(n-1) alpha + 2(n-1)/n S beta + (n-1)/n S gamma
// cost reduce_scatter: (n-1) alpha + (n-1)/n S (beta + gamma)
// cost all_gather: (n-1) alpha + (n-1)/n S beta
// cost all_gatherv: (n-1) alpha + (n-1)/n S beta, priced with equal blocks (S/n each)
// cost reduce_scatterv: (n-1) alpha + (n-1)/n S (beta + gamma), priced with equal blocks (S/n each)
#include "models/prices/rounds.h"

namespace kcoll {
namespace models {

void PriceRing(PriceBuilder& b) {
  const RingRounds rounds = RingRoundsOf(b.collective(), b.ranks());
  AddRing(b, 1.0 / static_cast<double>(b.ranks()), rounds.reducing, rounds.copying);
}

}  // namespace models
}  // namespace kcoll
