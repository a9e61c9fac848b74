// Who is on which node. Built once per communicator: from MPI's shared-memory split (ranks that can share memory
// form a node), or emulated with a fixed number of ranks per node so one machine can stand in for several.
#ifndef KCOLL_COLLECTIVES_TOPOLOGY_TOPOLOGY_H_
#define KCOLL_COLLECTIVES_TOPOLOGY_TOPOLOGY_H_

#include <string>
#include <vector>

namespace kcoll {

struct Topology {
  int rank = 0;
  int nranks = 1;
  int nnodes = 1;
  bool emulated = false;           // nodes come from a ranks-per-node setting, not from the machine
  std::vector<int> node_of;        // node index of each rank, nodes numbered by their lowest rank
  std::vector<int> local_rank_of;  // position of each rank within its node
  std::vector<int> ring;           // ring order: each node's ranks in turn, nodes chained in index order

  // Ranks per node when every node has the same number, else 0.
  int uniform_ranks_per_node() const;
  // The ranks on node `node`, in rank order.
  std::vector<int> RanksOnNode(int node) const;
  bool SameNode(int a, int b) const { return node_of[a] == node_of[b]; }
  std::string Describe() const;
};

// A topology from each rank's node index (any labels; renumbered by lowest rank). `emulated` is recorded as given.
Topology MakeTopology(int rank, const std::vector<int>& node_labels, bool emulated);

// ranks_per_node consecutive ranks per node; ranks_per_node must divide nranks (checked by the caller).
Topology MakeEmulatedTopology(int rank, int nranks, int ranks_per_node);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TOPOLOGY_TOPOLOGY_H_
