// recursive_doubling (p' = p2 the largest power of two <= n; schedules: collectives/algorithms/<collective>/
// recursive_doubling.cc). all_reduce: fold-in, log2 p' rounds exchanging the full S (reducing) at distances 1, 2, ...,
// fold-out. all_gather: fold-in of the folded ranks' blocks (S/n), log2 p' rounds at distances 1, 2, ... where a rank
// sends all the blocks it holds, fold-out of the whole result (the partner's own block included: one message rather
// than two around that block). barrier: dissemination, d rounds of empty messages from i to i + 2^k mod n (no folds
// needed). scan, exscan: ceil(log2 n) rounds in which rank i exchanges its whole partial S with i XOR 2^k where that
// rank exists, each reducing what it receives.
//
// cost all_reduce: log2(p2) (alpha + S beta + S gamma); other n: + 2 (alpha + S beta) + S gamma
// cost all_gather: log2(p2) alpha + (p2-1)/p2 S beta; other n: + 2 alpha + (1 + 1/n) S beta
// cost barrier: d alpha
// cost scan: d (alpha + S beta + S gamma)
// cost exscan: d (alpha + S beta + S gamma)
#include "models/prices/rounds.h"
#include "models/trees.h"

namespace kcoll {
namespace models {
namespace {

void AddDoublingAllGather(PriceBuilder& b) {
  const int64_t n = b.ranks();
  const Folding fold(n);
  const std::vector<double> prefix = fold.BlockPrefix(n);
  b.AddRounds(1, fold.FoldIn(1.0 / n), false);
  for (int64_t mask = 1; mask < fold.pow2; mask <<= 1) {
    std::vector<Transfer> transfers;
    for (int64_t j = 0; j < fold.pow2; ++j) {
      const int64_t group = j & ~(mask - 1);  // the survivors whose blocks j holds
      transfers.push_back({fold.Rank(j), fold.Rank(j ^ mask), prefix[group + mask] - prefix[group]});
    }
    b.AddRounds(1, transfers, false);
  }
  b.AddRounds(1, fold.FoldOut(1.0), false);
}

void AddDoublingScan(PriceBuilder& b) {
  const int64_t n = b.ranks();
  for (int64_t d = 1; d < n; d <<= 1) {
    std::vector<Transfer> transfers;
    for (int64_t i = 0; i < n; ++i) {
      if ((i ^ d) < n) transfers.push_back({i, i ^ d, 1.0});
    }
    b.AddRounds(1, transfers, /*reduces=*/true);
  }
}

void AddDissemination(PriceBuilder& b) {
  const int64_t n = b.ranks();
  for (int k = 0; k < CeilLog2(n); ++k) {
    std::vector<Transfer> transfers;
    for (int64_t i = 0; i < n; ++i) transfers.push_back({i, (i + (int64_t{1} << k)) % n, 0});
    b.AddRounds(1, transfers, false);
  }
}

}  // namespace

void PriceRecursiveDoubling(PriceBuilder& b) {
  switch (b.collective()) {
    case Collective::kAllReduce:
      AddFoldedAllReduce(b, /*halving=*/false);
      break;
    case Collective::kAllGather:
      AddDoublingAllGather(b);
      break;
    case Collective::kScan:
    case Collective::kExScan:
      AddDoublingScan(b);
      break;
    default:  // barrier
      AddDissemination(b);
      break;
  }
}

}  // namespace models
}  // namespace kcoll
