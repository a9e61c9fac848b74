// Who is on which node, and the rings and trees every algorithm runs on. Built once per communicator: nodes from
// MPI's shared-memory split (ranks that can share memory form a node), or emulated with a fixed number of ranks per
// node so one machine can stand in for several; rings and trees from the node layout (see graph.h).
#ifndef KCOLL_BASE_TOPOLOGY_H_
#define KCOLL_BASE_TOPOLOGY_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/graph.h"
#include "base/rank_info.h"

namespace kcoll {

struct Topology {
  // At most this many channels, as NCCL.
  static constexpr int kMaxChannels = 32;

  int rank = 0;
  int nranks = 1;
  int nnodes = 1;
  bool emulated = false;           // nodes come from a ranks-per-node setting, not from the machine
  std::vector<int> node_of;        // node index of each rank, nodes numbered by their lowest rank
  std::vector<int> local_rank_of;  // position of each rank within its node
  std::vector<int> ring;           // ring order: each node's ranks in turn, nodes chained in index order (channel 0)

  // The communication graph (graph.h explains each construction).
  std::vector<std::vector<int>> channels;  // ring order of each channel; channels[0] == ring
  Tree binomial_tree;                      // rooted at rank 0, over the ring order
  std::array<Tree, 2> double_binary_tree;  // tree 0 rooted at rank 0, over the ring order

  // What each rank reported about its machine (empty when the topology was built without discovery, in tests).
  std::vector<RankInfo> ranks;
  // Identifies the communicator in logs: the same on every rank, different for every communicator (a hash of
  // rank 0's RankInfo). 0 when built without discovery.
  uint64_t comm_id = 0;

  // Ranks per node when every node has the same number, else 0.
  int uniform_ranks_per_node() const;
  // The ranks on node `node`, in rank order.
  std::vector<int> RanksOnNode(int node) const;
  bool SameNode(int a, int b) const { return node_of[a] == node_of[b]; }

  int nchannels() const { return static_cast<int>(channels.size()); }
  // The ring of channel `channel`; any channel >= 0 (algorithms asked for more channels than the communicator
  // has reuse the rings cyclically and are told apart by their tags).
  const std::vector<int>& ChannelRing(int channel) const { return channels[channel % nchannels()]; }
  // Double binary tree `t` (0 or 1).
  const Tree& DoubleTree(int t) const { return double_binary_tree[t]; }
  // A binomial tree rooted at `root` (for Broadcast/Reduce with a root other than 0), over the ring order
  // starting at `root`. Computed on each call (O(nranks)).
  Tree BinomialTreeRootedAt(int root) const;

  // One line: nranks, nnodes, channel 0's ring.
  std::string Describe() const;
};

// "comm" ids as printed in logs and JSON: 0x followed by 16 hex digits.
std::string FormatCommId(uint64_t id);

// A topology from each rank's node index (any labels; renumbered by lowest rank) with `nchannels` rings (1..32).
// `emulated` is recorded as given.
Topology MakeTopology(int rank, const std::vector<int>& node_labels, bool emulated, int nchannels = 1);

// ranks_per_node consecutive ranks per node; ranks_per_node must divide nranks (checked by the caller).
Topology MakeEmulatedTopology(int rank, int nranks, int ranks_per_node, int nchannels = 1);

}  // namespace kcoll

#endif  // KCOLL_BASE_TOPOLOGY_H_
