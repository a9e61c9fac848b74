// pairwise (schedules: collectives/algorithms/alltoall/pairwise.cc, sendrecv/pairwise.cc, alltoallv's). alltoall:
// n-1 rounds; in round k rank i sends its block for i+k (S/n) to it and receives from i-k; every round is a
// permutation, so no rank is flooded. Each node has the same number X of ranks sending off-node in a round (and, by
// symmetry, receiving from off-node), so the rounds are grouped by X. sendrecv: one round, rank i sends S to i+1 mod n.
//
// cost alltoall: (n-1) (alpha + S/n beta)
// cost alltoallv: (n-1) (alpha + S/n beta), priced with equal blocks (S/n each)
// cost sendrecv: alpha + S beta
#include <algorithm>
#include <map>

#include "models/prices/rounds.h"

namespace kcoll {
namespace models {
namespace {

void AddPairwiseAllToAll(PriceBuilder& b) {
  const Topology& topology = b.topology();
  const int64_t n = b.ranks();
  const int64_t p = topology.ranks_per_node;
  std::map<int64_t, double> rounds_by_crossing;
  for (int64_t k = 1; k < n; ++k) rounds_by_crossing[PairwiseCrossingSenders(topology, k)] += 1;
  const double block = 1.0 / n;
  for (const auto& [crossing, count] : rounds_by_crossing) {
    RoundLoad load;
    load.has_intra = crossing < p;
    load.intra = load.has_intra ? block : 0;
    load.has_inter = crossing > 0;
    load.inter = load.has_inter ? std::max(block, crossing * block / topology.nics_per_node) : 0;
    load.inter_streams = StreamsPerNic(topology, crossing);
    // What each rank receives, for profiles whose ranks' cores copy (Profile::transfers_use_cores): one block, from
    // its own node on p - crossing ranks of each node, from another node on the other `crossing`.
    const int64_t nodes = topology.nodes;
    if (crossing < p) load.receives.push_back({block, 1, 0, 0, 0, (p - crossing) * nodes});
    if (crossing > 0) load.receives.push_back({0, 0, block, 1, 0, crossing * nodes});
    b.AddRoundLoad(count, load, static_cast<double>(n) * block);
  }
}

}  // namespace

void PricePairwise(PriceBuilder& b) {
  if (b.collective() == Collective::kAllToAll || b.collective() == Collective::kAllToAllV) {
    AddPairwiseAllToAll(b);
  } else {
    AddRing(b, 1.0, 0, 1);  // sendrecv: one round, i -> i+1, all of S
  }
}

}  // namespace models
}  // namespace kcoll
