// hierarchical and hierarchical_ring_tree (all_reduce on Q nodes of P ranks; schedule:
// collectives/algorithms/all_reduce/hierarchical.cc). hierarchical: intra-node ring ReduceScatter over the P ranks of
// each node (P-1 rounds of S/P), then P inter-node ring AllReduces at once, one per local rank over the Q ranks
// holding the same shard (2(Q-1) rounds of S/(PQ); these P streams share each node's NICs), then intra-node ring
// AllGather (P-1 rounds of S/P). hierarchical_ring_tree: the same with the inter-node phase a binomial-tree
// AllReduce over the Q nodes on S/P (ceil(log2 Q) reducing rounds of S/P toward node 0, then as many broadcast
// rounds). Both run the buffer in slices of P chunks (P * chunk_bytes), each slice through the three phases before
// the next: the phases' rounds are priced per slice, the first phase with the whole buffer as working set (it reads
// the slice from memory) and the others with the slice (still in cache).
//
// cost all_reduce hierarchical: 2 (P-1) alpha + 2 (P-1)/P S beta inside nodes, and a ring AllReduce of S/P over Q nodes
// cost all_reduce hierarchical_ring_tree: 2 (P-1) alpha + 2 (P-1)/P S beta inside nodes, and 2 ceil(log2 Q)
// (alpha + S/P beta) across them
#include "models/prices/rounds.h"
#include "models/trees.h"

namespace kcoll {
namespace models {
namespace {

void AddHierarchical(PriceBuilder& b, bool inter_tree) {
  const int64_t p = b.topology().ranks_per_node;
  const int64_t q = b.topology().nodes;
  b.InSlices(static_cast<double>(p) * b.options().chunk_bytes, p > 1 ? 1 : 0);
  std::vector<Transfer> intra;
  for (int64_t node = 0; node < q; ++node) {
    for (int64_t l = 0; l < p; ++l) intra.push_back({node * p + l, node * p + (l + 1) % p, 1.0 / p});
  }
  b.AddRounds(static_cast<double>(p - 1), intra, true);
  if (!inter_tree) {
    std::vector<Transfer> inter;
    for (int64_t node = 0; node < q; ++node) {
      for (int64_t l = 0; l < p; ++l) inter.push_back({node * p + l, ((node + 1) % q) * p + l, 1.0 / (p * q)});
    }
    b.AddRounds(static_cast<double>(q - 1), inter, true);
    b.AddRounds(static_cast<double>(q - 1), inter, false);
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
      b.AddRounds(1, transfers, up);
    };
    for (int i = 0; i < levels; ++i) round(int64_t{1} << i, true);
    for (int i = levels - 1; i >= 0; --i) round(int64_t{1} << i, false);
  }
  b.AddRounds(static_cast<double>(p - 1), intra, false);
}

}  // namespace

void PriceHierarchical(PriceBuilder& b) { AddHierarchical(b, /*inter_tree=*/false); }

void PriceHierarchicalRingTree(PriceBuilder& b) { AddHierarchical(b, /*inter_tree=*/true); }

}  // namespace models
}  // namespace kcoll
