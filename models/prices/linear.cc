// linear (broadcast, reduce, gather, scatter, barrier; schedules: collectives/algorithms/<collective>/linear.cc): the
// root (rank 0) talks to every other rank in turn, one message per round: S for broadcast and reduce (reducing), S/n
// for gather and scatter, empty messages for barrier (n-1 to the root, then n-1 releases). The root's link carries
// everything: only for few ranks, tiny messages, or as a baseline.
//
// cost broadcast: alpha + (n-1) S beta
// cost reduce: alpha + (n-1) S (beta + gamma)
// cost gather: (n-1) alpha + (n-1)/n S beta
// cost scatter: (n-1) alpha + (n-1)/n S beta
// cost barrier: 2 alpha + 2 (n-1) o (o: the root's per-message overhead)
#include "models/prices/rounds.h"

namespace kcoll {
namespace models {

void PriceLinear(PriceBuilder& b) {
  const double n = static_cast<double>(b.ranks());
  switch (b.collective()) {
    case Collective::kBroadcast:
      AddLinear(b, /*to_root=*/false, 1, /*reduces=*/false);
      break;
    case Collective::kReduce:
      AddLinear(b, /*to_root=*/true, 1, /*reduces=*/true);
      break;
    case Collective::kGather:
      AddLinear(b, /*to_root=*/true, 1.0 / n, /*reduces=*/false);
      break;
    case Collective::kScatter:
      AddLinear(b, /*to_root=*/false, 1.0 / n, /*reduces=*/false);
      break;
    default:  // barrier
      AddLinear(b, /*to_root=*/true, 0, /*reduces=*/false);
      AddLinear(b, /*to_root=*/false, 0, /*reduces=*/false);
      break;
  }
}

}  // namespace models
}  // namespace kcoll
