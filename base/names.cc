#include "base/names.h"

#include <iterator>
#include <limits>

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
    // A scan's every prefix crosses each link between consecutive ranks once: busbw = algbw, as Reduce's.
    {Collective::kScan, "scan", false, true, false, BusBwScaling::kOne},
    {Collective::kExScan, "exscan", false, true, false, BusBwScaling::kOne},
    // The v-collectives scale as their equal-count forms, S being the whole gathered buffer (all_gatherv) or one
    // rank's send buffer (alltoallv): with equal counts their busbw is the non-v one's.
    {Collective::kAllGatherV, "all_gatherv", false, false, true, BusBwScaling::kNMinusOneOverN},
    {Collective::kAllToAllV, "alltoallv", false, false, true, BusBwScaling::kNMinusOneOverN},
    {Collective::kReduceScatterV, "reduce_scatterv", false, true, true, BusBwScaling::kNMinusOneOverN},
    {Collective::kGatherV, "gatherv", true, false, true, BusBwScaling::kNMinusOneOverN},
    {Collective::kScatterV, "scatterv", true, false, true, BusBwScaling::kNMinusOneOverN},
};

constexpr size_t kCollectiveCount = sizeof(kCollectives) / sizeof(kCollectives[0]);

constexpr bool RowsInDeclarationOrder() {
  for (size_t i = 0; i < kCollectiveCount; ++i) {
    if (static_cast<size_t>(kCollectives[i].collective) != i) return false;
  }
  return true;
}
static_assert(RowsInDeclarationOrder(), "kCollectives must list the collectives in declaration order");

// Every algorithm, `auto` first, then in the order of base/algorithm_list.h (the enumeration's order).
constexpr AlgorithmFacts kAlgorithms[] = {
    {Algorithm::kAuto, "auto", std::numeric_limits<int>::max(), AlgorithmNeeds::kNothing},
#define KCOLL_ALGORITHM_FACTS(enumerator, name, simplicity, needs) \
  {Algorithm::k##enumerator, name, simplicity, AlgorithmNeeds::needs},
    KCOLL_ALGORITHMS(KCOLL_ALGORITHM_FACTS)
#undef KCOLL_ALGORITHM_FACTS
};

// Which algorithm serves which collective, in the list's order.
struct Served {
  Collective collective;
  Algorithm algorithm;
};
constexpr Served kSchedules[] = {
#define KCOLL_SERVED(collective, enumerator, schedule, price) {Collective::k##collective, Algorithm::k##enumerator},
    KCOLL_SCHEDULES(KCOLL_SERVED)
#undef KCOLL_SERVED
};

constexpr NamedValue<Algorithm> kAlgorithmNames[] = {
#define KCOLL_ALGORITHM_NAME(enumerator, name, simplicity, needs) {Algorithm::k##enumerator, name},
    {Algorithm::kAuto, "auto"}, KCOLL_ALGORITHMS(KCOLL_ALGORITHM_NAME)
#undef KCOLL_ALGORITHM_NAME
};

// The row of a value outside the enumeration (a C caller's bad integer), so that no lookup reads past the table.
constexpr CollectiveFacts kInvalidCollective = {Collective::kBarrier, "invalid", false, false, false,
                                                BusBwScaling::kZero};

}  // namespace

const std::vector<Collective>& AllCollectives() {
  static const auto* all = new std::vector<Collective>(ColumnOf(kCollectives, &CollectiveFacts::collective));
  return *all;
}

bool IsValid(Collective c) { return static_cast<size_t>(c) < kCollectiveCount; }

const CollectiveFacts& FactsOf(Collective c) {
  return IsValid(c) ? kCollectives[static_cast<size_t>(c)] : kInvalidCollective;
}

bool IsRooted(Collective c) { return FactsOf(c).rooted; }

bool Reduces(Collective c) { return FactsOf(c).reduces; }

bool NeedsHostRanks(Collective c, Algorithm a) { return c == Collective::kAllToAllV && a == Algorithm::kBruck; }

bool IsVariable(Collective c) {
  return c == Collective::kAllGatherV || c == Collective::kAllToAllV || c == Collective::kReduceScatterV ||
         c == Collective::kGatherV || c == Collective::kScatterV;
}

int ReducedRanks(Collective c, int rank, int nranks) {
  if (c == Collective::kScan) return rank + 1;
  if (c == Collective::kExScan) return rank;
  return nranks;
}

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

const AlgorithmFacts& FactsOf(Algorithm a) {
  const size_t i = static_cast<size_t>(a);
  return i < std::size(kAlgorithms) ? kAlgorithms[i] : kAlgorithms[0];
}

std::vector<Algorithm> AlgorithmsFor(Collective c) {
  std::vector<Algorithm> out;
  for (const Served& s : kSchedules) {
    if (s.collective == c) out.push_back(s.algorithm);
  }
  return out;
}

std::vector<Algorithm> TransferAlgorithmsFor(Collective c) {
  std::vector<Algorithm> out;
  for (Algorithm a : AlgorithmsFor(c)) {
    const AlgorithmNeeds needs = FactsOf(a).needs;
    if (needs == AlgorithmNeeds::kNothing || needs == AlgorithmNeeds::kEqualNodes) out.push_back(a);
  }
  return out;
}

int SimplicityRank(Algorithm a) { return FactsOf(a).simplicity; }

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
