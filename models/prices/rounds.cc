#include "models/prices/rounds.h"

#include <algorithm>

#include "models/trees.h"

namespace kcoll {
namespace models {

RingRounds RingRoundsOf(Collective collective, int64_t ranks) {
  const double steps = static_cast<double>(ranks - 1);
  const bool gathers = collective == Collective::kAllGather || collective == Collective::kAllGatherV;
  const bool scatters = collective == Collective::kReduceScatter || collective == Collective::kReduceScatterV;
  return RingRounds{gathers ? 0 : steps, scatters ? 0 : steps};
}

void AddRing(PriceBuilder& b, double amount, double reducing_rounds, double copying_rounds) {
  const int64_t n = b.ranks();
  std::vector<Transfer> transfers;
  transfers.reserve(n);
  for (int64_t i = 0; i < n; ++i) transfers.push_back({i, (i + 1) % n, amount});
  b.AddRounds(reducing_rounds, transfers, true);
  b.AddRounds(copying_rounds, transfers, false);
}

void AddBinomialReduce(PriceBuilder& b, bool reduces, bool blocks, double amount) {
  const int64_t n = b.ranks();
  const int levels = CeilLog2(n);
  for (int i = 0; i < levels; ++i) {
    const int64_t d = int64_t{1} << i;
    std::vector<Transfer> transfers;
    for (int64_t r = 0; r + d < n; r += 2 * d) {
      transfers.push_back({r + d, r, blocks ? amount * static_cast<double>(std::min(d, n - r - d)) : amount});
    }
    b.AddRounds(1, transfers, reduces);
  }
}

void AddBinomialBroadcast(PriceBuilder& b, bool blocks, double amount) {
  const int64_t n = b.ranks();
  const int levels = CeilLog2(n);
  for (int i = levels - 1; i >= 0; --i) {
    const int64_t d = int64_t{1} << i;
    std::vector<Transfer> transfers;
    for (int64_t r = 0; r + d < n; r += 2 * d) {
      transfers.push_back({r, r + d, blocks ? amount * static_cast<double>(std::min(d, n - r - d)) : amount});
    }
    b.AddRounds(1, transfers, false);
  }
}

// The rounds with the other rank on the root's node are all alike, and so are the others.
void AddLinear(PriceBuilder& b, bool to_root, double amount, bool reduces) {
  const int64_t p = b.topology().ranks_per_node;
  const int64_t n = b.ranks();
  auto add = [&](int64_t j, double count) {
    b.AddRounds(count, {to_root ? Transfer{j, 0, amount} : Transfer{0, j, amount}}, reduces);
  };
  if (p > 1) add(1, static_cast<double>(p - 1));
  if (n > p) add(p, static_cast<double>(n - p));
}

Folding::Folding(int64_t n) : pow2(FloorPowerOfTwo(n)), extra(n - pow2) {}

std::vector<Transfer> Folding::FoldIn(double amount) const {
  std::vector<Transfer> t;
  for (int64_t i = 0; i < extra; ++i) t.push_back({2 * i, 2 * i + 1, amount});
  return t;
}

std::vector<Transfer> Folding::FoldOut(double amount) const {
  std::vector<Transfer> t;
  for (int64_t i = 0; i < extra; ++i) t.push_back({2 * i + 1, 2 * i, amount});
  return t;
}

std::vector<double> Folding::BlockPrefix(int64_t n) const {
  std::vector<double> prefix(pow2 + 1, 0);
  for (int64_t j = 0; j < pow2; ++j) prefix[j + 1] = prefix[j] + (j < extra ? 2.0 : 1.0) / n;
  return prefix;
}

void AddFoldedAllReduce(PriceBuilder& b, bool halving) {
  const Folding fold(b.ranks());
  b.AddRounds(1, fold.FoldIn(1), true);
  auto exchange = [&](int64_t mask, double amount, bool reduces) {
    std::vector<Transfer> transfers;
    for (int64_t j = 0; j < fold.pow2; ++j) transfers.push_back({fold.Rank(j), fold.Rank(j ^ mask), amount});
    b.AddRounds(1, transfers, reduces);
  };
  for (int64_t mask = 1; mask < fold.pow2; mask <<= 1) exchange(mask, halving ? 0.5 / mask : 1.0, true);
  if (halving) {
    for (int64_t mask = fold.pow2 / 2; mask >= 1; mask >>= 1) exchange(mask, 0.5 / mask, false);
  }
  b.AddRounds(1, fold.FoldOut(1), false);
}

}  // namespace models
}  // namespace kcoll
