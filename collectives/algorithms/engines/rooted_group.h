// Rank orders for the rooted and block-structured collectives: a Group whose position 0 is the root, built from
// the topology's ring order (so that a chain walks a node's ranks before crossing to the next node), or plain rank
// order (when the group positions must map to contiguous blocks of a rank-ordered buffer).
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_ROOTED_GROUP_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_ROOTED_GROUP_H_

#include <algorithm>
#include <vector>

#include "collectives/algorithms/engines/group.h"

namespace kcoll {

// 0, 1, ..., nranks-1.
inline std::vector<int> RankOrder(int nranks) {
  std::vector<int> order(nranks);
  for (int r = 0; r < nranks; ++r) order[r] = r;
  return order;
}

// `order` rotated so that `root` comes first, as a Group seen from `me`. `order` must contain both.
inline Group MakeRootedGroup(std::vector<int> order, int root, int me) {
  std::rotate(order.begin(), std::find(order.begin(), order.end(), root), order.end());
  return MakeGroup(std::move(order), me);
}

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_ROOTED_GROUP_H_
