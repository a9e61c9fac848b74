#include "collectives/algorithms/registry.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "collectives/algorithms/bidirectional_ring.h"
#include "collectives/algorithms/direct.h"
#include "collectives/algorithms/double_binary_tree.h"
#include "collectives/algorithms/halving_doubling.h"
#include "collectives/algorithms/hierarchical.h"
#include "collectives/algorithms/recursive_doubling.h"
#include "collectives/algorithms/ring.h"
#include "collectives/algorithms/ring_pipelined.h"
#include "collectives/algorithms/tree.h"
// Collectives other than AllReduce.
#include "collectives/algorithms/all_gather.h"
#include "collectives/algorithms/all_to_all.h"
#include "collectives/algorithms/barrier.h"
#include "collectives/algorithms/broadcast.h"
#include "collectives/algorithms/gather_scatter.h"
#include "collectives/algorithms/reduce.h"
#include "collectives/algorithms/reduce_scatter.h"
#include "collectives/algorithms/send_recv.h"

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
      {Collective::kAllReduce, Algorithm::kDirect, &DirectAllReduce},

      // Collectives other than AllReduce; within a collective, the first entry is its fallback default.
      {Collective::kReduceScatter, Algorithm::kRing, &RingReduceScatter},
      {Collective::kReduceScatter, Algorithm::kHalvingDoubling, &HalvingReduceScatter},
      {Collective::kReduceScatter, Algorithm::kDirect, &DirectReduceScatter},
      {Collective::kAllGather, Algorithm::kRing, &RingAllGather},
      {Collective::kAllGather, Algorithm::kRecursiveDoubling, &RecursiveDoublingAllGather},
      {Collective::kAllGather, Algorithm::kDirect, &DirectAllGather},
      {Collective::kBroadcast, Algorithm::kChain, &ChainBroadcast},
      {Collective::kBroadcast, Algorithm::kTree, &TreeBroadcast},
      {Collective::kBroadcast, Algorithm::kLinear, &LinearBroadcast},
      {Collective::kBroadcast, Algorithm::kDirect, &DirectBroadcast},
      {Collective::kReduce, Algorithm::kChain, &ChainReduce},
      {Collective::kReduce, Algorithm::kTree, &TreeReduce},
      {Collective::kReduce, Algorithm::kLinear, &LinearReduce},
      {Collective::kAllToAll, Algorithm::kPairwise, &PairwiseAllToAll},
      {Collective::kGather, Algorithm::kLinear, &LinearGather},
      {Collective::kGather, Algorithm::kTree, &TreeGather},
      {Collective::kScatter, Algorithm::kLinear, &LinearScatter},
      {Collective::kScatter, Algorithm::kTree, &TreeScatter},
      {Collective::kSendRecv, Algorithm::kPairwise, &PairwiseSendRecv},
      {Collective::kBarrier, Algorithm::kRecursiveDoubling, &DisseminationBarrier},
      {Collective::kBarrier, Algorithm::kTree, &TreeBarrier},
      {Collective::kBarrier, Algorithm::kLinear, &LinearBarrier},
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

std::vector<Algorithm> TransferAlgorithmsFor(Collective collective) {
  std::vector<Algorithm> out;
  for (Algorithm a : AlgorithmsFor(collective)) {
    if (a != Algorithm::kDirect) out.push_back(a);
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
