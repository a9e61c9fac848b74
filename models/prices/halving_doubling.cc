// halving_doubling (p' = p2 the largest power of two <= n, r = n - p'). all_reduce (Rabenseifner; schedule:
// collectives/algorithms/all_reduce/halving_doubling.cc): fold-in when r > 0: ranks 2i (i < r) send all S to 2i+1,
// which reduces; the p' remaining ranks then run log2 p' halving rounds exchanging S/2, S/4, ..., S/p' with partners
// at distance 1, 2, ..., p'/2 (reducing), then log2 p' doubling rounds exchanging S/p', ..., S/2 at distances
// p'/2, ..., 1; fold-out: the full result (S) goes back to each rank 2i. reduce_scatter (recursive halving; schedule:
// collectives/algorithms/reduce_scatter/halving_doubling.cc): fold-in, then log2 p' halving rounds with partners at
// distance p'/2, ..., 1 (so each rank ends with its own blocks; a rank that stands in for a folded pair carries two
// blocks, so a round moves the exact sum of the blocks it hands over), then fold-out of the folded rank's own block
// (S/n).
//
// cost all_reduce: 2 log2(p2) alpha + 2 (p2-1)/p2 S beta + (p2-1)/p2 S gamma; other n: + 2 (alpha + S beta) + S gamma
// cost reduce_scatter: log2(p2) alpha + (p2-1)/p2 S (beta + gamma); other n: + 2 alpha + (1 + 1/n) S beta + S gamma
#include "models/prices/rounds.h"

namespace kcoll {
namespace models {
namespace {

// Survivor j holds the blocks [low[j], low[j] + 2 mask) of the survivors before the round of distance `mask`; it
// keeps the half on its side of its partner and sends the other half.
void AddHalvingReduceScatter(PriceBuilder& b) {
  const int64_t n = b.ranks();
  const Folding fold(n);
  const std::vector<double> prefix = fold.BlockPrefix(n);
  b.AddRounds(1, fold.FoldIn(1), true);
  std::vector<int64_t> low(fold.pow2, 0);
  for (int64_t mask = fold.pow2 / 2; mask >= 1; mask >>= 1) {
    std::vector<Transfer> transfers;
    for (int64_t j = 0; j < fold.pow2; ++j) {
      int64_t send_begin = low[j];
      if ((j & mask) == 0) {
        send_begin = low[j] + mask;
      } else {
        low[j] += mask;
      }
      transfers.push_back({fold.Rank(j), fold.Rank(j ^ mask), prefix[send_begin + mask] - prefix[send_begin]});
    }
    b.AddRounds(1, transfers, true);
  }
  b.AddRounds(1, fold.FoldOut(1.0 / n), false);
}

}  // namespace

void PriceHalvingDoubling(PriceBuilder& b) {
  if (b.collective() == Collective::kAllReduce) {
    AddFoldedAllReduce(b, /*halving=*/true);
  } else {
    AddHalvingReduceScatter(b);
  }
}

}  // namespace models
}  // namespace kcoll
