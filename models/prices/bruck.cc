// bruck (schedules: collectives/algorithms/alltoall/bruck.cc, alltoallv/bruck.cc). alltoall: ceil(log2 n) rounds;
// in the round of distance d (1, 2, 4, ...) rank i sends to i+d, in one message, the m_d blocks (S/n each) of the
// positions whose bit d is set, m_d = #{j < n : j & d}. The receiver unpacks what it received into its rotated
// blocks: that pass is priced as a reduction of the bytes received (gamma), as a copy of the same size costs about as
// much; the rotation before the first round and the copy out after the last are not priced. alltoallv first runs the
// same rounds with the blocks' sizes (8 bytes per position: latency only), then the blocks, received in place (no
// unpacking), priced with equal blocks.
//
// cost alltoall: sum over d of (alpha + m_d/n S (beta + gamma))
// cost alltoallv: sum over d of (2 alpha + m_d/n S beta), priced with equal blocks (S/n each)
#include <cstdint>
#include <vector>

#include "models/prices/rounds.h"

namespace kcoll {
namespace models {
namespace {

int64_t PositionsOfStep(int64_t n, int64_t d) {
  int64_t positions = 0;
  for (int64_t j = 0; j < n; ++j) positions += (j & d) ? 1 : 0;
  return positions;
}

// Every rank i sends `amount` to i+d.
std::vector<Transfer> StepTransfers(int64_t n, int64_t d, double amount) {
  std::vector<Transfer> transfers;
  for (int64_t i = 0; i < n; ++i) transfers.push_back({i, (i + d) % n, amount});
  return transfers;
}

}  // namespace

void PriceBruck(PriceBuilder& b) {
  const int64_t n = b.ranks();
  const bool sized = b.collective() == Collective::kAllToAllV;
  for (int64_t d = 1; d < n; d <<= 1) {
    const int64_t positions = PositionsOfStep(n, d);
    if (sized) b.AddFixedRound(StepTransfers(n, d, static_cast<double>(positions * sizeof(uint64_t))));
    b.AddRounds(1, StepTransfers(n, d, static_cast<double>(positions) / static_cast<double>(n)),
                /*reduces=*/!sized);
  }
}

}  // namespace models
}  // namespace kcoll
