// The rounds several prices share: a ring's rounds, the binomial tree's reduce and broadcast rounds, a root talking
// to every rank in turn, and the folds of a rank count onto the largest power of two.
#ifndef KCOLL_MODELS_PRICES_ROUNDS_H_
#define KCOLL_MODELS_PRICES_ROUNDS_H_

#include <cstdint>
#include <vector>

#include "base/names.h"
#include "models/link_load.h"
#include "models/price_builder.h"

namespace kcoll {
namespace models {

// A ring's rounds for `collective`: ReduceScatter's n-1 reduce, AllGather's n-1 copy, AllReduce both.
struct RingRounds {
  double reducing = 0;
  double copying = 0;
};
RingRounds RingRoundsOf(Collective collective, int64_t ranks);

// Rank i sends `amount` of S to i+1 mod n, in `reducing_rounds` rounds that reduce and `copying_rounds` that do not.
void AddRing(PriceBuilder& b, double amount, double reducing_rounds, double copying_rounds);

// The binomial tree rooted at rank 0: round i (distance d = 2^i) sends from r + d to r for every multiple r of 2d
// (reduce; broadcast runs the rounds in reverse order and direction). With `blocks`, the sender forwards its whole
// subtree: min(d, n - r - d) blocks of `amount` each.
void AddBinomialReduce(PriceBuilder& b, bool reduces, bool blocks, double amount);
void AddBinomialBroadcast(PriceBuilder& b, bool blocks, double amount);

// The root (rank 0) and every other rank in turn, one message of `amount` per round, toward the root or from it.
void AddLinear(PriceBuilder& b, bool to_root, double amount, bool reduces);

// Folds for n = p' + r: ranks 2i and 2i+1 (i < r) pair up; 2i+1 stands in for both. Survivor j is rank 2j+1 for
// j < r and rank j + r otherwise.
struct Folding {
  explicit Folding(int64_t n);
  int64_t Rank(int64_t survivor) const { return survivor < extra ? 2 * survivor + 1 : survivor + extra; }
  std::vector<Transfer> FoldIn(double amount) const;
  std::vector<Transfer> FoldOut(double amount) const;
  // Survivor j's share of S when every rank has a block of 1/n: folded survivors carry two blocks.
  std::vector<double> BlockPrefix(int64_t n) const;
  int64_t pow2;
  int64_t extra;
};

// AllReduce over the folded power of two: fold-in, log2 p' reducing exchanges at distances 1, 2, ..., then (with
// `halving`) as many copying ones at distances p'/2, ..., 1, fold-out. Halving exchanges S/2, S/4, ... (Rabenseifner);
// without, every exchange is all of S (recursive doubling).
void AddFoldedAllReduce(PriceBuilder& b, bool halving);

}  // namespace models
}  // namespace kcoll

#endif  // KCOLL_MODELS_PRICES_ROUNDS_H_
