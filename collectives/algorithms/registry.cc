#include "collectives/algorithms/registry.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "collectives/algorithms/bidirectional_ring.h"
#include "collectives/algorithms/double_binary_tree.h"
#include "collectives/algorithms/halving_doubling.h"
#include "collectives/algorithms/hierarchical.h"
#include "collectives/algorithms/recursive_doubling.h"
#include "collectives/algorithms/ring.h"
#include "collectives/algorithms/ring_pipelined.h"
#include "collectives/algorithms/tree.h"

namespace kcoll {
namespace {

struct Entry {
  Collective collective;
  Algorithm algorithm;
  AlgorithmFn fn;
};

const std::vector<Entry>& Table() {
  static const auto* table = new std::vector<Entry>{
      {Collective::kAllReduce, Algorithm::kRing, &RingAllReduce},
      {Collective::kAllReduce, Algorithm::kRingPipelined, &RingPipelinedAllReduce},
      {Collective::kAllReduce, Algorithm::kBidirectionalRing, &BidirectionalRingAllReduce},
      {Collective::kAllReduce, Algorithm::kTree, &TreeAllReduce},
      {Collective::kAllReduce, Algorithm::kDoubleBinaryTree, &DoubleBinaryTreeAllReduce},
      {Collective::kAllReduce, Algorithm::kHalvingDoubling, &HalvingDoublingAllReduce},
      {Collective::kAllReduce, Algorithm::kRecursiveDoubling, &RecursiveDoublingAllReduce},
      {Collective::kAllReduce, Algorithm::kHierarchical, &HierarchicalAllReduce},
      {Collective::kAllReduce, Algorithm::kHierarchicalRingTree, &HierarchicalRingTreeAllReduce},
  };
  return *table;
}

}  // namespace

std::vector<Algorithm> AlgorithmsFor(Collective collective) {
  std::vector<Algorithm> out;
  for (const Entry& e : Table()) {
    if (e.collective == collective) out.push_back(e.algorithm);
  }
  return out;
}

absl::StatusOr<AlgorithmFn> FindAlgorithm(Collective collective, Algorithm algorithm) {
  for (const Entry& e : Table()) {
    if (e.collective == collective && e.algorithm == algorithm) return e.fn;
  }
  std::string valid;
  for (Algorithm a : AlgorithmsFor(collective)) absl::StrAppend(&valid, valid.empty() ? "" : ", ", AlgorithmName(a));
  return absl::InvalidArgumentError(absl::StrCat("algorithm '", AlgorithmName(algorithm), "' does not apply to ",
                                                 CollectiveName(collective), " (available: ", valid, ")"));
}

}  // namespace kcoll
