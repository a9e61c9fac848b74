// chain (broadcast, reduce; schedules: collectives/algorithms/<collective>/chain.cc; and the linear scans,
// collectives/algorithms/scan/linear.cc): ranks form the chain 0 - 1 - ... - n-1 with the root at 0; S is cut into k
// chunks of chunk_bytes (the last one partial) that stream along it (toward the root for reduce, away from rank 0 for
// the scans, reducing at each hop). After the pipeline fills every link is busy, so the time tends to S beta for
// k >> n.
//
// cost broadcast: (n-2+k) (alpha + S/k beta)
// cost reduce: (n-2+k) (alpha + S/k (beta + gamma))
// cost scan: (n-2+k) (alpha + S/k (beta + gamma))
// cost exscan: (n-2+k) (alpha + S/k (beta + gamma))
#include "models/prices/rounds.h"

namespace kcoll {
namespace models {

void PriceChain(PriceBuilder& b) {
  const Collective c = b.collective();
  b.Chain(/*reduces=*/c == Collective::kReduce || c == Collective::kScan || c == Collective::kExScan);
}

}  // namespace models
}  // namespace kcoll
