#include "collectives/names.h"

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kcoll {

namespace {

// One row per collective, in declaration order.
constexpr CollectiveFacts kCollectives[] = {
    // {collective, name, rooted, reduces, size_counts_every_rank, busbw_scaling}
    {Collective::kAllReduce, "all_reduce", false, true, false, BusBwScaling::kTwiceNMinusOneOverN},
    {Collective::kReduceScatter, "reduce_scatter", false, true, true, BusBwScaling::kNMinusOneOverN},
    {Collective::kAllGather, "all_gather", false, false, true, BusBwScaling::kNMinusOneOverN},
    {Collective::kBroadcast, "broadcast", true, false, false, BusBwScaling::kOne},
    {Collective::kReduce, "reduce", true, true, false, BusBwScaling::kOne},
    {Collective::kAllToAll, "alltoall", false, false, true, BusBwScaling::kNMinusOneOverN},
    {Collective::kGather, "gather", true, false, true, BusBwScaling::kNMinusOneOverN},
    {Collective::kScatter, "scatter", true, false, true, BusBwScaling::kNMinusOneOverN},
    {Collective::kSendRecv, "sendrecv", false, false, false, BusBwScaling::kOne},
    {Collective::kBarrier, "barrier", false, false, false, BusBwScaling::kZero},
};

constexpr size_t kCollectiveCount = sizeof(kCollectives) / sizeof(kCollectives[0]);

constexpr bool RowsInDeclarationOrder() {
  for (size_t i = 0; i < kCollectiveCount; ++i) {
    if (static_cast<size_t>(kCollectives[i].collective) != i) return false;
  }
  return true;
}
static_assert(RowsInDeclarationOrder(), "kCollectives must list the collectives in declaration order");

// The row of a value outside the enumeration (a C caller's bad integer), so that no lookup reads past the table.
constexpr CollectiveFacts kInvalidCollective = {Collective::kBarrier, "invalid", false, false, false,
                                                BusBwScaling::kZero};

}  // namespace

const std::vector<Collective>& AllCollectives() {
  static const auto* all = [] {
    auto* v = new std::vector<Collective>;
    for (const CollectiveFacts& f : kCollectives) v->push_back(f.collective);
    return v;
  }();
  return *all;
}

bool IsValid(Collective c) { return static_cast<size_t>(c) < kCollectiveCount; }

const CollectiveFacts& FactsOf(Collective c) {
  return IsValid(c) ? kCollectives[static_cast<size_t>(c)] : kInvalidCollective;
}

bool IsRooted(Collective c) { return FactsOf(c).rooted; }

bool Reduces(Collective c) { return FactsOf(c).reduces; }

uint64_t NcclTestsBytes(Collective c, size_t count, size_t element_bytes, int nranks) {
  const CollectiveFacts& f = FactsOf(c);
  if (f.busbw_scaling == BusBwScaling::kZero) return 0;
  const uint64_t one = static_cast<uint64_t>(count) * element_bytes;
  return f.size_counts_every_rank ? one * static_cast<uint64_t>(nranks) : one;
}

double BusBwFactorValue(Collective c, int64_t nranks) {
  const double n = static_cast<double>(nranks);
  switch (FactsOf(c).busbw_scaling) {
    case BusBwScaling::kTwiceNMinusOneOverN:
      return 2.0 * (n - 1) / n;
    case BusBwScaling::kNMinusOneOverN:
      return (n - 1) / n;
    case BusBwScaling::kOne:
      return 1.0;
    case BusBwScaling::kZero:
      return 0.0;
  }
  return 0.0;
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

absl::string_view CollectiveName(Collective c) { return FactsOf(c).name; }

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
