// tree: the binomial tree rooted at rank 0 (models/trees.h; schedules: collectives/algorithms/<collective>/tree.cc).
// reduce = d rounds of S toward the root, each reducing; broadcast = d rounds of S away from it; all_reduce = the
// pipelined reduce + broadcast of double_binary_tree on the one binomial tree carrying all of S (the root reduces d
// chunks per stage); gather / scatter = d rounds where a rank forwards the blocks of its whole subtree
// (min(2^i, n - 2^i) S/n in round i at the root); barrier = the reduce and broadcast rounds with empty messages.
//
// cost all_reduce: 2 (d + k - 1) (alpha + S/k beta) + d S gamma
// cost broadcast: d (alpha + S beta)
// cost reduce: d (alpha + S (beta + gamma))
// cost gather: d alpha + (n-1)/n S beta
// cost scatter: d alpha + (n-1)/n S beta
// cost barrier: 2 d alpha
#include "models/prices/rounds.h"
#include "models/trees.h"

namespace kcoll {
namespace models {

void PriceTree(PriceBuilder& b) {
  const double n = static_cast<double>(b.ranks());
  switch (b.collective()) {
    case Collective::kAllReduce:
      b.PipelinedTrees({BinomialTreeParents(b.ranks())});
      break;
    case Collective::kReduce:
      AddBinomialReduce(b, /*reduces=*/true, /*blocks=*/false, 1);
      break;
    case Collective::kBroadcast:
      AddBinomialBroadcast(b, /*blocks=*/false, 1);
      break;
    case Collective::kGather:
      AddBinomialReduce(b, /*reduces=*/false, /*blocks=*/true, 1.0 / n);
      break;
    case Collective::kScatter:
      AddBinomialBroadcast(b, /*blocks=*/true, 1.0 / n);
      break;
    default:  // barrier
      AddBinomialReduce(b, /*reduces=*/false, /*blocks=*/false, 0);
      AddBinomialBroadcast(b, /*blocks=*/false, 0);
      break;
  }
}

}  // namespace models
}  // namespace kcoll
