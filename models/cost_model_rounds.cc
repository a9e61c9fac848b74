// The cost model's schedules of rounds (cost_model.h): for each algorithm priced round by round, the transfers of
// each round, per rank, as the algorithm in collectives/algorithms/ sends them.
#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "models/cost_model.h"
#include "models/trees.h"

namespace kcoll {
namespace models {

void CostModel::AddRounds(double count, std::vector<Transfer> transfers, bool reduces) {
  if (count <= 0 || transfers.empty()) return;
  double amount = 0;
  for (const Transfer& t : transfers) amount += t.src != t.dst ? t.amount : 0;
  RoundLoad load = SummarizeRound(topology_, std::move(transfers), reduces);
  if (!load.has_intra && !load.has_inter) return;
  rounds_.push_back({count, load});
  sent_per_byte_ += count * amount;
}

void CostModel::AddRing(double amount, double reducing_rounds, double copying_rounds) {
  const int64_t n = topology_.ranks();
  std::vector<Transfer> transfers;
  transfers.reserve(n);
  for (int64_t i = 0; i < n; ++i) transfers.push_back({i, (i + 1) % n, amount});
  AddRounds(reducing_rounds, transfers, true);
  AddRounds(copying_rounds, transfers, false);
}

// Round i (distance d = 2^i) sends from r + d to r for every multiple r of 2d. With `blocks`, the sender forwards
// its whole subtree: min(d, n - r - d) blocks of `amount` each.
void CostModel::AddBinomialReduce(bool reduces, bool blocks, double amount) {
  const int64_t n = topology_.ranks();
  const int levels = CeilLog2(n);
  for (int i = 0; i < levels; ++i) {
    const int64_t d = int64_t{1} << i;
    std::vector<Transfer> transfers;
    for (int64_t r = 0; r + d < n; r += 2 * d) {
      transfers.push_back({r + d, r, blocks ? amount * static_cast<double>(std::min(d, n - r - d)) : amount});
    }
    AddRounds(1, transfers, reduces);
  }
}

void CostModel::AddBinomialBroadcast(bool blocks, double amount) {
  const int64_t n = topology_.ranks();
  const int levels = CeilLog2(n);
  for (int i = levels - 1; i >= 0; --i) {
    const int64_t d = int64_t{1} << i;
    std::vector<Transfer> transfers;
    for (int64_t r = 0; r + d < n; r += 2 * d) {
      transfers.push_back({r, r + d, blocks ? amount * static_cast<double>(std::min(d, n - r - d)) : amount});
    }
    AddRounds(1, transfers, false);
  }
}

// One message per round between the root and rank j: the rounds with j on the root's node are all alike, and so are
// the others.
void CostModel::AddLinear(bool to_root, double amount, bool reduces) {
  const int64_t p = topology_.ranks_per_node;
  const int64_t n = topology_.ranks();
  auto add = [&](int64_t j, double count) {
    AddRounds(count, {to_root ? Transfer{j, 0, amount} : Transfer{0, j, amount}}, reduces);
  };
  if (p > 1) add(1, static_cast<double>(p - 1));
  if (n > p) add(p, static_cast<double>(n - p));
}

// Folds for n = p' + r: ranks 2i and 2i+1 (i < r) pair up; 2i+1 stands in for both. Survivor j is rank 2j+1 for
// j < r and rank j + r otherwise.
namespace {

struct Folding {
  explicit Folding(int64_t n) : pow2(FloorPowerOfTwo(n)), extra(n - pow2) {}
  int64_t Rank(int64_t survivor) const { return survivor < extra ? 2 * survivor + 1 : survivor + extra; }
  std::vector<Transfer> FoldIn(double amount) const {
    std::vector<Transfer> t;
    for (int64_t i = 0; i < extra; ++i) t.push_back({2 * i, 2 * i + 1, amount});
    return t;
  }
  std::vector<Transfer> FoldOut(double amount) const {
    std::vector<Transfer> t;
    for (int64_t i = 0; i < extra; ++i) t.push_back({2 * i + 1, 2 * i, amount});
    return t;
  }
  // Survivor j's share of S when every rank has a block of 1/n: folded survivors carry two blocks.
  std::vector<double> BlockPrefix(int64_t n) const {
    std::vector<double> prefix(pow2 + 1, 0);
    for (int64_t j = 0; j < pow2; ++j) prefix[j + 1] = prefix[j] + (j < extra ? 2.0 : 1.0) / n;
    return prefix;
  }
  int64_t pow2;
  int64_t extra;
};

}  // namespace

void CostModel::AddHalvingDoublingAllReduce(bool halving) {
  const Folding fold(topology_.ranks());
  AddRounds(1, fold.FoldIn(1), true);
  auto exchange = [&](int64_t mask, double amount, bool reduces) {
    std::vector<Transfer> transfers;
    for (int64_t j = 0; j < fold.pow2; ++j) transfers.push_back({fold.Rank(j), fold.Rank(j ^ mask), amount});
    AddRounds(1, transfers, reduces);
  };
  for (int64_t mask = 1; mask < fold.pow2; mask <<= 1) exchange(mask, halving ? 0.5 / mask : 1.0, true);
  if (halving) {
    for (int64_t mask = fold.pow2 / 2; mask >= 1; mask >>= 1) exchange(mask, 0.5 / mask, false);
  }
  AddRounds(1, fold.FoldOut(1), false);
}

void CostModel::AddHalvingReduceScatter() {
  const int64_t n = topology_.ranks();
  const Folding fold(n);
  const std::vector<double> prefix = fold.BlockPrefix(n);
  AddRounds(1, fold.FoldIn(1), true);
  // Survivor j holds the blocks [low[j], low[j] + 2 mask) of the survivors before the round of distance `mask`; it
  // keeps the half on its side of its partner and sends the other half.
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
    AddRounds(1, transfers, true);
  }
  AddRounds(1, fold.FoldOut(1.0 / n), false);
}

void CostModel::AddDoublingAllGather() {
  const int64_t n = topology_.ranks();
  const Folding fold(n);
  const std::vector<double> prefix = fold.BlockPrefix(n);
  AddRounds(1, fold.FoldIn(1.0 / n), false);
  for (int64_t mask = 1; mask < fold.pow2; mask <<= 1) {
    std::vector<Transfer> transfers;
    for (int64_t j = 0; j < fold.pow2; ++j) {
      const int64_t group = j & ~(mask - 1);  // the survivors whose blocks j holds
      transfers.push_back({fold.Rank(j), fold.Rank(j ^ mask), prefix[group + mask] - prefix[group]});
    }
    AddRounds(1, transfers, false);
  }
  // The whole result, the partner's own block included: one message rather than two around that block.
  AddRounds(1, fold.FoldOut(1.0), false);
}

void CostModel::AddHierarchical(bool inter_tree) {
  const int64_t p = topology_.ranks_per_node;
  const int64_t q = topology_.nodes;
  slice_bytes_ = static_cast<double>(p) * options_.chunk_bytes;
  cold_rounds_ = p > 1 ? 1 : 0;  // the ReduceScatter rounds read the slice from memory
  std::vector<Transfer> intra;
  for (int64_t node = 0; node < q; ++node) {
    for (int64_t l = 0; l < p; ++l) intra.push_back({node * p + l, node * p + (l + 1) % p, 1.0 / p});
  }
  AddRounds(static_cast<double>(p - 1), intra, true);
  if (!inter_tree) {
    std::vector<Transfer> inter;
    for (int64_t node = 0; node < q; ++node) {
      for (int64_t l = 0; l < p; ++l) inter.push_back({node * p + l, ((node + 1) % q) * p + l, 1.0 / (p * q)});
    }
    AddRounds(static_cast<double>(q - 1), inter, true);
    AddRounds(static_cast<double>(q - 1), inter, false);
  } else {
    const int levels = CeilLog2(q);
    auto round = [&](int64_t d, bool up) {
      std::vector<Transfer> transfers;
      for (int64_t node = 0; node + d < q; node += 2 * d) {
        for (int64_t l = 0; l < p; ++l) {
          const int64_t near = node * p + l;
          const int64_t far = (node + d) * p + l;
          transfers.push_back(up ? Transfer{far, near, 1.0 / p} : Transfer{near, far, 1.0 / p});
        }
      }
      AddRounds(1, transfers, up);
    };
    for (int i = 0; i < levels; ++i) round(int64_t{1} << i, true);
    for (int i = levels - 1; i >= 0; --i) round(int64_t{1} << i, false);
  }
  AddRounds(static_cast<double>(p - 1), intra, false);
}

// Round k: every rank sends S/n to i + k. Each node has the same number X of ranks sending off-node (and, by
// symmetry, receiving from off-node), so the rounds are grouped by X.
void CostModel::AddPairwise() {
  const int64_t n = topology_.ranks();
  const int64_t p = topology_.ranks_per_node;
  std::map<int64_t, double> rounds_by_crossing;
  for (int64_t k = 1; k < n; ++k) rounds_by_crossing[PairwiseCrossingSenders(topology_, k)] += 1;
  const double block = 1.0 / n;
  for (const auto& [crossing, count] : rounds_by_crossing) {
    RoundLoad load;
    load.has_intra = crossing < p;
    load.intra = load.has_intra ? block : 0;
    load.has_inter = crossing > 0;
    load.inter = load.has_inter ? std::max(block, crossing * block / topology_.nics_per_node) : 0;
    rounds_.push_back({count, load});
    sent_per_byte_ += count * static_cast<double>(n) * block;
  }
}

void CostModel::AddDissemination() {
  const int64_t n = topology_.ranks();
  for (int k = 0; k < CeilLog2(n); ++k) {
    std::vector<Transfer> transfers;
    for (int64_t i = 0; i < n; ++i) transfers.push_back({i, (i + (int64_t{1} << k)) % n, 0});
    AddRounds(1, transfers, false);
  }
}

}  // namespace models
}  // namespace kcoll
