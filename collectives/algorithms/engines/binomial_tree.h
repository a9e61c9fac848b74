// The binomial tree over positions 0..n-1 of a group, rooted at position 0 (rotate the group so the root comes
// first). Position v's parent is v with its lowest set bit cleared; its children are v + m for every power of two
// m below that bit (below the first power of two >= n at the root) with v + m < n. The subtree of v is the
// contiguous range [v, v + lowbit(v)) clipped to n, which is what lets Gather and Scatter move a whole subtree's
// blocks in one message. Depth is ceil(log2 n).
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_BINOMIAL_TREE_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_BINOMIAL_TREE_H_

#include <vector>

#include "collectives/algorithms/engines/partition.h"

namespace kcoll {

struct BinomialNode {
  int parent = -1;            // -1 at the root
  std::vector<int> children;  // largest subtree first (the order a broadcast serves them)
  int subtree_end = 0;        // the subtree of this position is [position, subtree_end)
};

// Span of a position's subtree: the lowest set bit, or the first power of two >= n at the root.
inline int BinomialSpan(int v, int n) {
  if (v != 0) return v & -v;
  int span = 1;
  while (span < n) span <<= 1;
  return span;
}

inline BinomialNode BinomialNodeOf(int v, int n) {
  BinomialNode node;
  const int span = BinomialSpan(v, n);
  node.parent = v == 0 ? -1 : v - span;
  for (int m = span >> 1; m >= 1; m >>= 1) {
    if (v + m < n) node.children.push_back(v + m);
  }
  node.subtree_end = v + span < n ? v + span : n;
  return node;
}

// A rank's place in the binomial tree rooted at `root`, numbered relative to the root.
struct RelativeTree {
  RelativeTree(int rank, int root, int nranks)
      : n(nranks), root(root), v(Mod(rank - root, nranks)), node(BinomialNodeOf(v, nranks)) {}
  int RankOf(int position) const { return (position + root) % n; }
  int SubtreeEnd(int position) const { return BinomialNodeOf(position, n).subtree_end; }

  int n, root, v;
  BinomialNode node;
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_BINOMIAL_TREE_H_
