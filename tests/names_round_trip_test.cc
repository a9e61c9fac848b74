#include <set>
#include <string>
#include <vector>

#include "base/names.h"
#include "base/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/matchers.h"

namespace kcoll {
namespace {

// Every value's name is unique and parses back to the value; returns how many names there were.
template <typename T, typename NameOf, typename Parse>
size_t ExpectEveryNameRoundTrips(const std::vector<T>& values, NameOf name_of, Parse parse) {
  std::set<std::string> seen;
  for (T value : values) {
    const std::string name(name_of(value));
    EXPECT_TRUE(seen.insert(name).second) << name << " appears twice";
    absl::StatusOr<T> parsed = parse(name);
    EXPECT_TRUE(parsed.ok()) << parsed.status();
    if (parsed.ok()) {
      EXPECT_EQ(*parsed, value) << name;
    }
  }
  return seen.size();
}

TEST(NamesTest, EveryCollectiveRoundTrips) {
  EXPECT_EQ(ExpectEveryNameRoundTrips(AllCollectives(), CollectiveName, ParseCollective), 17u);
}

TEST(NamesTest, EveryAlgorithmRoundTrips) {
  const size_t names = ExpectEveryNameRoundTrips(AllAlgorithms(), AlgorithmName, ParseAlgorithm);
  // `auto` and every row of base/algorithm_list.h.
#define KCOLL_COUNT_ROW(...) +1
  constexpr size_t kListed = 1 KCOLL_ALGORITHMS(KCOLL_COUNT_ROW);
#undef KCOLL_COUNT_ROW
  EXPECT_EQ(names, kListed);
}

TEST(NamesTest, ParsingIgnoresCase) {
  EXPECT_EQ(*ParseCollective("All_Reduce"), Collective::kAllReduce);
  EXPECT_EQ(*ParseAlgorithm("HALVING_DOUBLING"), Algorithm::kHalvingDoubling);
}

TEST(NamesTest, UnknownCollectiveNamesTheTextAndListsTheValidNames) {
  absl::StatusOr<Collective> parsed = ParseCollective("allreduce");
  EXPECT_THAT(parsed, IsInvalidArgument("'allreduce'"));
  for (Collective c : AllCollectives())
    EXPECT_THAT(parsed.status().message(), HasSubstr(std::string(CollectiveName(c))));
}

TEST(NamesTest, UnknownAlgorithmNamesTheTextAndListsTheValidNames) {
  absl::StatusOr<Algorithm> parsed = ParseAlgorithm("butterfly");
  EXPECT_THAT(parsed, IsInvalidArgument("'butterfly'"));
  for (Algorithm a : AllAlgorithms()) EXPECT_THAT(parsed.status().message(), HasSubstr(std::string(AlgorithmName(a))));
}

TEST(NamesTest, EmptyTextIsRefused) {
  EXPECT_THAT(ParseCollective(""), IsInvalidArgument("''"));
  EXPECT_THAT(ParseAlgorithm(""), IsInvalidArgument("''"));
}

TEST(CollectiveFactsTest, EachRowIsItsCollectives) {
  for (Collective c : AllCollectives()) {
    EXPECT_EQ(FactsOf(c).collective, c);
    EXPECT_EQ(FactsOf(c).name, CollectiveName(c));
    EXPECT_EQ(IsRooted(c), FactsOf(c).rooted);
    EXPECT_EQ(Reduces(c), FactsOf(c).reduces);
  }
}

TEST(CollectiveFactsTest, RootsAndReductionsAsMpiDefinesThem) {
  std::set<std::string> rooted, reducing;
  for (Collective c : AllCollectives()) {
    if (IsRooted(c)) rooted.emplace(CollectiveName(c));
    if (Reduces(c)) reducing.emplace(CollectiveName(c));
  }
  EXPECT_EQ(rooted, (std::set<std::string>{"broadcast", "reduce", "gather", "scatter", "gatherv", "scatterv"}));
  EXPECT_EQ(reducing,
            (std::set<std::string>{"all_reduce", "reduce_scatter", "reduce", "scan", "exscan", "reduce_scatterv"}));
}

TEST(CollectiveFactsTest, NcclTestsSizesAndBusBwFactors) {
  EXPECT_EQ(NcclTestsBytes(Collective::kAllReduce, 10, 4, 8), 40u);
  EXPECT_EQ(NcclTestsBytes(Collective::kReduceScatter, 10, 4, 8), 320u);  // the whole input
  EXPECT_EQ(NcclTestsBytes(Collective::kAllToAll, 1, 8, 4), 32u);         // one rank's buffer
  EXPECT_EQ(NcclTestsBytes(Collective::kBarrier, 7, 4, 4), 0u);
  EXPECT_DOUBLE_EQ(BusBwFactorValue(Collective::kAllReduce, 4), 1.5);
  EXPECT_DOUBLE_EQ(BusBwFactorValue(Collective::kAllGather, 4), 0.75);
  EXPECT_DOUBLE_EQ(BusBwFactorValue(Collective::kBroadcast, 4), 1.0);
  EXPECT_DOUBLE_EQ(BusBwFactorValue(Collective::kBarrier, 4), 0.0);
  EXPECT_DOUBLE_EQ(BusBwFactorValue(Collective::kScan, 4), 1.0);  // each prefix crosses each link once
  EXPECT_EQ(NcclTestsBytes(Collective::kExScan, 10, 4, 8), 40u);
  EXPECT_DOUBLE_EQ(BusBwFactorValue(Collective::kAllReduce, 1), 0.0);  // one rank moves nothing
}

TEST(CollectiveFactsTest, AValueOutsideTheEnumerationIsInvalidNotOutOfBounds) {
  const auto bad = static_cast<Collective>(99);
  EXPECT_FALSE(IsValid(bad));
  for (Collective c : AllCollectives()) EXPECT_TRUE(IsValid(c)) << CollectiveName(c);
  EXPECT_EQ(CollectiveName(bad), "invalid");
  EXPECT_FALSE(IsRooted(bad));
  EXPECT_FALSE(Reduces(bad));
  EXPECT_EQ(NcclTestsBytes(bad, 10, 4, 2), 0u);
}

}  // namespace
}  // namespace kcoll
