// bruck (schedule: collectives/algorithms/all_to_all/bruck.cc). alltoall: ceil(log2 n) rounds; in the round of
// distance d (1, 2, 4, ...) rank i sends to i+d, in one message, the m_d blocks (S/n each) of the positions whose
// bit d is set, m_d = #{j < n : j & d}. The receiver unpacks what it received into its rotated blocks: that pass is
// priced as a reduction of the bytes received (gamma), as a copy of the same size costs about as much; the rotation
// before the first round and the copy out after the last are not priced.
//
// cost alltoall: sum over d of (alpha + m_d/n S (beta + gamma))
#include "models/prices/rounds.h"

namespace kcoll {
namespace models {

void PriceBruck(PriceBuilder& b) {
  const int64_t n = b.ranks();
  for (int64_t d = 1; d < n; d <<= 1) {
    int64_t positions = 0;
    for (int64_t j = 0; j < n; ++j) positions += (j & d) ? 1 : 0;
    std::vector<Transfer> transfers;
    for (int64_t i = 0; i < n; ++i) {
      transfers.push_back({i, (i + d) % n, static_cast<double>(positions) / static_cast<double>(n)});
    }
    b.AddRounds(1, transfers, /*reduces=*/true);
  }
}

}  // namespace models
}  // namespace kcoll
