// chain (broadcast, reduce; schedules: collectives/algorithms/<collective>/chain.cc): ranks form the chain
// 0 - 1 - ... - n-1 with the root at 0; S is cut into k chunks of chunk_bytes (the last one partial) that stream along
// it (toward the root for reduce, reducing at each hop). After the pipeline fills every link is busy, so the time
// tends to S beta for k >> n.
//
// cost broadcast: (n-2+k) (alpha + S/k beta)
// cost reduce: (n-2+k) (alpha + S/k (beta + gamma))
#include "models/prices/rounds.h"

namespace kcoll {
namespace models {

void PriceChain(PriceBuilder& b) { b.Chain(/*reduces=*/b.collective() == Collective::kReduce); }

}  // namespace models
}  // namespace kcoll
