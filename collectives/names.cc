#include "collectives/names.h"

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kcoll {

const std::vector<Collective>& AllCollectives() {
  static const auto* all = new std::vector<Collective>{
      Collective::kAllReduce, Collective::kReduceScatter, Collective::kAllGather, Collective::kBroadcast,
      Collective::kReduce,    Collective::kAllToAll,      Collective::kGather,    Collective::kScatter,
      Collective::kSendRecv,  Collective::kBarrier,
  };
  return *all;
}

const std::vector<Algorithm>& AllAlgorithms() {
  static const auto* all = new std::vector<Algorithm>{
      Algorithm::kAuto,
      Algorithm::kRing,
      Algorithm::kRingPipelined,
      Algorithm::kBidirectionalRing,
      Algorithm::kTree,
      Algorithm::kDoubleBinaryTree,
      Algorithm::kHalvingDoubling,
      Algorithm::kRecursiveDoubling,
      Algorithm::kHierarchical,
      Algorithm::kHierarchicalRingTree,
      Algorithm::kChain,
      Algorithm::kPairwise,
      Algorithm::kLinear,
      Algorithm::kDirect,
  };
  return *all;
}

absl::string_view CollectiveName(Collective c) {
  switch (c) {
    case Collective::kAllReduce:
      return "all_reduce";
    case Collective::kReduceScatter:
      return "reduce_scatter";
    case Collective::kAllGather:
      return "all_gather";
    case Collective::kBroadcast:
      return "broadcast";
    case Collective::kReduce:
      return "reduce";
    case Collective::kAllToAll:
      return "alltoall";
    case Collective::kGather:
      return "gather";
    case Collective::kScatter:
      return "scatter";
    case Collective::kSendRecv:
      return "sendrecv";
    case Collective::kBarrier:
      return "barrier";
  }
  return "invalid";
}

absl::string_view AlgorithmName(Algorithm a) {
  switch (a) {
    case Algorithm::kAuto:
      return "auto";
    case Algorithm::kRing:
      return "ring";
    case Algorithm::kRingPipelined:
      return "ring_pipelined";
    case Algorithm::kBidirectionalRing:
      return "bidirectional_ring";
    case Algorithm::kTree:
      return "tree";
    case Algorithm::kDoubleBinaryTree:
      return "double_binary_tree";
    case Algorithm::kHalvingDoubling:
      return "halving_doubling";
    case Algorithm::kRecursiveDoubling:
      return "recursive_doubling";
    case Algorithm::kHierarchical:
      return "hierarchical";
    case Algorithm::kHierarchicalRingTree:
      return "hierarchical_ring_tree";
    case Algorithm::kChain:
      return "chain";
    case Algorithm::kPairwise:
      return "pairwise";
    case Algorithm::kLinear:
      return "linear";
    case Algorithm::kDirect:
      return "direct";
  }
  return "invalid";
}

absl::StatusOr<Collective> ParseCollective(absl::string_view text) {
  const std::string lower = absl::AsciiStrToLower(text);
  std::vector<std::string> names;
  for (Collective c : AllCollectives()) {
    if (lower == CollectiveName(c)) return c;
    names.emplace_back(CollectiveName(c));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("collective '", text, "' is not one of: ", absl::StrJoin(names, ", ")));
}

absl::StatusOr<Algorithm> ParseAlgorithm(absl::string_view text) {
  const std::string lower = absl::AsciiStrToLower(text);
  std::vector<std::string> names;
  for (Algorithm a : AllAlgorithms()) {
    if (lower == AlgorithmName(a)) return a;
    names.emplace_back(AlgorithmName(a));
  }
  return absl::InvalidArgumentError(absl::StrCat("algorithm '", text, "' is not one of: ", absl::StrJoin(names, ", ")));
}

}  // namespace kcoll
