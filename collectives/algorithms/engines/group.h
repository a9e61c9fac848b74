// A subset of the communicator's ranks arranged in an order (a ring, a node, the ranks holding one shard), and
// this rank's position in it. Algorithms are written against a Group so that the hierarchical ones can run a ring
// inside a node and another across nodes with the same code.
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_GROUP_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_GROUP_H_

#include <vector>

#include "collectives/algorithms/engines/partition.h"

namespace kcoll {

struct Group {
  std::vector<int> ranks;  // communicator ranks, in the group's order
  int index = 0;           // this rank's position in `ranks`

  int size() const { return static_cast<int>(ranks.size()); }
  // The communicator rank `offset` positions after this one (negative: before), wrapping around.
  int Peer(int offset) const { return ranks[Mod(index + offset, size())]; }
};

// `ranks` must contain `me`.
inline Group MakeGroup(std::vector<int> ranks, int me) {
  Group g;
  g.ranks = std::move(ranks);
  for (int i = 0; i < g.size(); ++i) {
    if (g.ranks[i] == me) g.index = i;
  }
  return g;
}

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_GROUP_H_
