#include "base/topology.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace kcoll {

int Topology::uniform_ranks_per_node() const {
  std::vector<int> counts(nnodes, 0);
  for (int node : node_of) ++counts[node];
  for (int c : counts) {
    if (c != counts[0]) return 0;
  }
  return counts.empty() ? 0 : counts[0];
}

std::vector<int> Topology::RanksOnNode(int node) const {
  std::vector<int> out;
  for (int r = 0; r < nranks; ++r) {
    if (node_of[r] == node) out.push_back(r);
  }
  return out;
}

Tree Topology::BinomialTreeRootedAt(int root) const {
  std::vector<int> order;
  order.reserve(ring.size());
  size_t start = 0;
  while (start < ring.size() && ring[start] != root) ++start;
  for (size_t i = 0; i < ring.size(); ++i) order.push_back(ring[(start + i) % ring.size()]);
  return BinomialTree(order);
}

std::string Topology::Describe() const {
  return absl::StrCat("nranks ", nranks, " nnodes ", nnodes, emulated ? " (emulated)" : "", " ring ",
                      absl::StrJoin(ring, " -> "));
}

std::string FormatCommId(uint64_t id) { return absl::StrFormat("0x%016x", id); }

Topology MakeTopology(int rank, const std::vector<int>& node_labels, bool emulated, int nchannels) {
  Topology t;
  t.rank = rank;
  t.nranks = static_cast<int>(node_labels.size());
  t.emulated = emulated;
  std::map<int, int> index_of_label;  // first-seen order = order of lowest rank
  t.node_of.resize(t.nranks);
  t.local_rank_of.resize(t.nranks);
  std::vector<int> next_local;
  for (int r = 0; r < t.nranks; ++r) {
    auto [it, inserted] = index_of_label.emplace(node_labels[r], static_cast<int>(index_of_label.size()));
    if (inserted) next_local.push_back(0);
    t.node_of[r] = it->second;
    t.local_rank_of[r] = next_local[it->second]++;
  }
  t.nnodes = static_cast<int>(index_of_label.size());
  for (int c = 0; c < std::max(nchannels, 1); ++c) t.channels.push_back(ChannelRing(t.node_of, c));
  t.ring = t.channels[0];
  t.binomial_tree = BinomialTree(t.ring);
  t.double_binary_tree = DoubleBinaryTree(t.ring);
  return t;
}

Topology MakeEmulatedTopology(int rank, int nranks, int ranks_per_node, int nchannels) {
  std::vector<int> labels(nranks);
  for (int r = 0; r < nranks; ++r) labels[r] = r / ranks_per_node;
  return MakeTopology(rank, labels, /*emulated=*/true, nchannels);
}

}  // namespace kcoll
