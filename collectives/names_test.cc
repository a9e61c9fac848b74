#include "collectives/names.h"

#include <set>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/test_util.h"

namespace kcoll {
namespace {

using ::kcoll::models::testing::IsInvalidArgument;
using ::testing::HasSubstr;

TEST(NamesTest, EveryCollectiveRoundTrips) {
  std::set<std::string> seen;
  for (Collective c : AllCollectives()) {
    const std::string name(CollectiveName(c));
    EXPECT_TRUE(seen.insert(name).second) << name << " appears twice";
    absl::StatusOr<Collective> parsed = ParseCollective(name);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, c);
  }
  EXPECT_EQ(seen.size(), 10u);
}

TEST(NamesTest, EveryAlgorithmRoundTrips) {
  std::set<std::string> seen;
  for (Algorithm a : AllAlgorithms()) {
    const std::string name(AlgorithmName(a));
    EXPECT_TRUE(seen.insert(name).second) << name << " appears twice";
    absl::StatusOr<Algorithm> parsed = ParseAlgorithm(name);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, a);
  }
  EXPECT_EQ(seen.size(), 14u);
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

}  // namespace
}  // namespace kcoll
