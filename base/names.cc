#include "base/names.h"

#include "base/named_values.h"

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

// Every algorithm, `auto` first, then in the order of names.h.
constexpr NamedValue<Algorithm> kAlgorithmNames[] = {
    {Algorithm::kAuto, "auto"},
    {Algorithm::kRing, "ring"},
    {Algorithm::kRingPipelined, "ring_pipelined"},
    {Algorithm::kBidirectionalRing, "bidirectional_ring"},
    {Algorithm::kTree, "tree"},
    {Algorithm::kDoubleBinaryTree, "double_binary_tree"},
    {Algorithm::kHalvingDoubling, "halving_doubling"},
    {Algorithm::kRecursiveDoubling, "recursive_doubling"},
    {Algorithm::kHierarchical, "hierarchical"},
    {Algorithm::kHierarchicalRingTree, "hierarchical_ring_tree"},
    {Algorithm::kChain, "chain"},
    {Algorithm::kPairwise, "pairwise"},
    {Algorithm::kLinear, "linear"},
    {Algorithm::kDirect, "direct"},
};

constexpr bool AlgorithmRowsInDeclarationOrder() {
  for (size_t i = 0; i < sizeof(kAlgorithmNames) / sizeof(kAlgorithmNames[0]); ++i) {
    if (static_cast<size_t>(kAlgorithmNames[i].value) != i) return false;
  }
  return static_cast<size_t>(Algorithm::kDirect) + 1 == sizeof(kAlgorithmNames) / sizeof(kAlgorithmNames[0]);
}
static_assert(AlgorithmRowsInDeclarationOrder(), "kAlgorithmNames must name every algorithm, in declaration order");

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
  static const auto* all = new std::vector<Algorithm>(ValuesIn(kAlgorithmNames));
  return *all;
}

absl::string_view CollectiveName(Collective c) { return FactsOf(c).name; }

absl::string_view AlgorithmName(Algorithm a) { return NameIn(kAlgorithmNames, a); }

absl::StatusOr<Collective> ParseCollective(absl::string_view text) {
  return ParseName(AllCollectives(), CollectiveName, text, "collective");
}

absl::StatusOr<Algorithm> ParseAlgorithm(absl::string_view text) {
  return ParseNameIn(kAlgorithmNames, text, "algorithm");
}

}  // namespace kcoll
