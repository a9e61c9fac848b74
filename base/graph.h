// The communication graph of a communicator: the rings of its channels and the trees of the tree algorithms, built
// once from the node layout so that every algorithm reads the same orders instead of deriving its own.
//
// Rings (channels). Channel 0 is the flat ring of NCCL: each node's ranks in rank order, the nodes chained in node
// index order, the last rank of the last node closing the ring to rank 0. Channels duplicate the ring for
// parallelism (independent transfers on separate parts of a buffer); they differ by rotation *within each node*:
// channel c starts every node's segment at local rank c mod (ranks on that node). So on several nodes each channel
// leaves node k from a different local rank and enters node k+1 at a different local rank, spreading the
// inter-node traffic over all the ranks of a node (where NCCL would spread it over NICs), while every channel keeps
// the same number of inter-node links (one per node boundary). On one node every channel is the same cycle entered
// at a different rank, which changes which rank finishes which block of a ring algorithm. Channels are separated on
// the wire by their tag: an algorithm working on channel c uses tag c (plus its own offset).
//
// Trees. Both are built over a rank order (the ring order, so that a node's ranks are contiguous and most edges stay
// within a node):
//  - the binomial tree: position v's parent is v with its lowest set bit cleared; its children are v + 2^k for every
//    2^k below v's lowest set bit (all 2^k for the root). Depth ceil(log2 n).
//  - the double binary tree (NCCL's, after Sanders, Speck and Träff): two binary trees such that every rank is an
//    interior node in at most one of them, so that when each tree carries half of the data every rank sends and
//    receives about as much as in one tree. Tree 0 is the in-order tree on positions 0..m-1 whose leaves are the
//    odd positions (position v with lowest set bit b has children v - b/2 and v + b/2 when b > 1; position 0, the
//    root, has the single child at the highest power of two below m). Tree 1 mirrors it (position v becomes
//    m-1-v): its interior nodes are odd positions. With m = n even the interior sets are disjoint. With n odd,
//    the two trees are built on the first m = n-1 positions and the last position hangs as a leaf under both
//    roots (each of which had a single child), so the property still holds.
#ifndef KCOLL_BASE_GRAPH_H_
#define KCOLL_BASE_GRAPH_H_

#include <array>
#include <vector>

namespace kcoll {

// A rooted spanning tree over the ranks 0..n-1, indexed by rank.
struct Tree {
  int root = 0;
  std::vector<int> parent;                 // parent[r]; -1 for the root
  std::vector<std::vector<int>> children;  // children[r]; for the binomial tree nearest (smallest subtree) first

  int size() const { return static_cast<int>(parent.size()); }
  int Parent(int rank) const { return parent[rank]; }
  const std::vector<int>& Children(int rank) const { return children[rank]; }
  bool IsLeaf(int rank) const { return children[rank].empty(); }
  // Edges on the longest root-to-leaf path.
  int Depth() const;
};

// The ring of channel `channel` (any channel >= 0) for the node layout `node_of` (node index of each rank, nodes
// numbered 0.. by their lowest rank).
std::vector<int> ChannelRing(const std::vector<int>& node_of, int channel);

// Binomial tree over `order` (a permutation of 0..n-1): order[0] is the root.
Tree BinomialTree(const std::vector<int>& order);

// The double binary tree over `order` (a permutation of 0..n-1). Tree 0's root is order[0].
std::array<Tree, 2> DoubleBinaryTree(const std::vector<int>& order);

}  // namespace kcoll

#endif  // KCOLL_BASE_GRAPH_H_
