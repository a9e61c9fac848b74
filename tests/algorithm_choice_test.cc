// The algorithm table, the choice when a call says auto, $KCOLL_ALGO parsing, and the cross-rank argument
// comparison's messages: pure functions, no MPI traffic.
#include <string>
#include <vector>

#include "choice/default_algorithm.h"
#include "collectives/algorithms/registry.h"
#include "collectives/argument_comparison.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/matchers.h"

namespace kcoll {
namespace {

Topology Ranks(int n) { return MakeEmulatedTopology(0, n, 1); }

TEST(RegistryTest, EveryCollectiveHasAnAlgorithm) {
  for (Collective c : AllCollectives()) EXPECT_FALSE(AlgorithmsFor(c).empty()) << CollectiveName(c);
}

TEST(RegistryTest, AlgorithmsPerCollective) {
  EXPECT_THAT(AlgorithmsFor(Collective::kReduceScatter),
              ElementsAre(Algorithm::kRing, Algorithm::kHalvingDoubling, Algorithm::kDirect));
  EXPECT_THAT(AlgorithmsFor(Collective::kAllGather),
              ElementsAre(Algorithm::kRing, Algorithm::kRecursiveDoubling, Algorithm::kDirect));
  EXPECT_THAT(AlgorithmsFor(Collective::kBroadcast),
              ElementsAre(Algorithm::kChain, Algorithm::kTree, Algorithm::kLinear, Algorithm::kDirect));
  EXPECT_THAT(TransferAlgorithmsFor(Collective::kBroadcast),
              ElementsAre(Algorithm::kChain, Algorithm::kTree, Algorithm::kLinear));
  EXPECT_THAT(AlgorithmsFor(Collective::kReduce), ElementsAre(Algorithm::kChain, Algorithm::kTree, Algorithm::kLinear));
  EXPECT_THAT(AlgorithmsFor(Collective::kAllToAll), ElementsAre(Algorithm::kPairwise, Algorithm::kBruck));
  EXPECT_THAT(AlgorithmsFor(Collective::kGather), ElementsAre(Algorithm::kLinear, Algorithm::kTree));
  EXPECT_THAT(AlgorithmsFor(Collective::kScatter), ElementsAre(Algorithm::kLinear, Algorithm::kTree));
  EXPECT_THAT(AlgorithmsFor(Collective::kSendRecv), ElementsAre(Algorithm::kPairwise));
  EXPECT_THAT(AlgorithmsFor(Collective::kBarrier),
              ElementsAre(Algorithm::kRecursiveDoubling, Algorithm::kTree, Algorithm::kLinear));
}

// Every (collective, algorithm) pair outside the table is refused with InvalidArgument naming both and listing
// what does apply.
TEST(RegistryTest, AlgorithmsThatDoNotApplyAreRefused) {
  for (Collective c : AllCollectives()) {
    const std::vector<Algorithm> valid = AlgorithmsFor(c);
    for (Algorithm a : AllAlgorithms()) {
      auto fn = FindAlgorithm(c, a);
      if (std::find(valid.begin(), valid.end(), a) != valid.end()) {
        EXPECT_TRUE(fn.ok()) << CollectiveName(c) << " " << AlgorithmName(a);
        continue;
      }
      ASSERT_FALSE(fn.ok());
      EXPECT_EQ(fn.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_THAT(std::string(fn.status().message()),
                  HasSubstr(absl::StrCat("algorithm '", AlgorithmName(a), "' does not apply to ", CollectiveName(c),
                                         " (available: ", AlgorithmName(valid[0]))));
    }
  }
}

TEST(DefaultAlgorithmTest, SizeThresholds) {
  const Topology eight = Ranks(8);
  auto choose = [&](Collective c, size_t bytes) { return DefaultAlgorithm(c, bytes, eight).value(); };
  EXPECT_EQ(choose(Collective::kAllReduce, 1), Algorithm::kRing);
  EXPECT_EQ(choose(Collective::kAllReduce, size_t{1} << 30), Algorithm::kRing);
  // ReduceScatter / AllGather: up to 1 MiB in all (per-rank bytes x 8 ranks) take the log-step schedule.
  EXPECT_EQ(choose(Collective::kReduceScatter, 128 << 10), Algorithm::kHalvingDoubling);
  EXPECT_EQ(choose(Collective::kReduceScatter, (128 << 10) + 1), Algorithm::kRing);
  EXPECT_EQ(choose(Collective::kAllGather, 128 << 10), Algorithm::kRecursiveDoubling);
  EXPECT_EQ(choose(Collective::kAllGather, (128 << 10) + 1), Algorithm::kRing);
  EXPECT_EQ(choose(Collective::kBroadcast, 64 << 10), Algorithm::kTree);
  EXPECT_EQ(choose(Collective::kBroadcast, (64 << 10) + 1), Algorithm::kChain);
  EXPECT_EQ(choose(Collective::kReduce, 4), Algorithm::kTree);
  EXPECT_EQ(choose(Collective::kReduce, 1 << 20), Algorithm::kChain);
  EXPECT_EQ(choose(Collective::kGather, 4 << 10), Algorithm::kTree);
  EXPECT_EQ(choose(Collective::kScatter, (4 << 10) + 1), Algorithm::kLinear);
  EXPECT_EQ(choose(Collective::kAllToAll, 4), Algorithm::kPairwise);
  EXPECT_EQ(choose(Collective::kSendRecv, 4), Algorithm::kPairwise);
  EXPECT_EQ(choose(Collective::kBarrier, 0), Algorithm::kRecursiveDoubling);
}

TEST(DefaultAlgorithmTest, ChoiceIsAlwaysRegistered) {
  for (int n : {1, 2, 3, 16}) {
    for (Collective c : AllCollectives()) {
      for (size_t bytes : {size_t{0}, size_t{1}, size_t{1} << 12, size_t{1} << 20, size_t{1} << 30}) {
        auto a = DefaultAlgorithm(c, bytes, Ranks(n));
        ASSERT_TRUE(a.ok()) << a.status();
        EXPECT_TRUE(FindAlgorithm(c, *a).ok()) << CollectiveName(c) << " " << AlgorithmName(*a);
      }
    }
  }
}

TEST(AlgorithmOverrideTest, OneNameAppliesWhereItIsImplemented) {
  EXPECT_EQ(ParseAlgorithmOverride("tree", Collective::kBroadcast).value(), Algorithm::kTree);
  EXPECT_EQ(ParseAlgorithmOverride(" Tree ", Collective::kGather).value(), Algorithm::kTree);
  EXPECT_EQ(ParseAlgorithmOverride("tree", Collective::kAllToAll).value(), std::nullopt);
  EXPECT_EQ(ParseAlgorithmOverride("ring", Collective::kReduceScatter).value(), Algorithm::kRing);
  EXPECT_EQ(ParseAlgorithmOverride("", Collective::kReduceScatter).value(), std::nullopt);
}

TEST(AlgorithmOverrideTest, PerCollectiveAssignments) {
  const std::string text = "all_gather=recursive_doubling, reduce=chain,barrier=linear";
  EXPECT_EQ(ParseAlgorithmOverride(text, Collective::kAllGather).value(), Algorithm::kRecursiveDoubling);
  EXPECT_EQ(ParseAlgorithmOverride(text, Collective::kReduce).value(), Algorithm::kChain);
  EXPECT_EQ(ParseAlgorithmOverride(text, Collective::kBarrier).value(), Algorithm::kLinear);
  EXPECT_EQ(ParseAlgorithmOverride(text, Collective::kBroadcast).value(), std::nullopt);
  // Assigned explicitly, an algorithm that does not apply is passed on (and refused by the call).
  EXPECT_EQ(ParseAlgorithmOverride("alltoall=ring", Collective::kAllToAll).value(), Algorithm::kRing);
}

TEST(AlgorithmOverrideTest, MalformedValuesAreInvalidArgument) {
  auto unknown_algorithm = ParseAlgorithmOverride("broadcast=fastest", Collective::kBroadcast);
  EXPECT_EQ(unknown_algorithm.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(unknown_algorithm.status().message()), HasSubstr("fastest"));
  auto unknown_collective = ParseAlgorithmOverride("allreduce2=ring", Collective::kBroadcast);
  EXPECT_EQ(unknown_collective.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(unknown_collective.status().message()), HasSubstr("allreduce2"));
  auto no_equals = ParseAlgorithmOverride("broadcast=tree,gather", Collective::kBroadcast);
  EXPECT_THAT(std::string(no_equals.status().message()), HasSubstr("'gather' is not collective=algorithm"));
}

CollectiveArgs Args(Collective c, size_t count, DataType type = DataType::kFloat32, ReduceOp op = ReduceOp::kSum,
                    int root = 0) {
  return CollectiveArgs{c, nullptr, nullptr, count, type, op, root, {}};
}

TEST(ArgsRecordTest, MatchingRecordsPass) {
  const ArgsRecord r = MakeArgsRecord(Args(Collective::kBroadcast, 10), Algorithm::kTree, true);
  EXPECT_TRUE(CompareArgsRecords({r, r, r}).ok());
}

TEST(ArgsRecordTest, FirstMismatchIsNamed) {
  const ArgsRecord a = MakeArgsRecord(Args(Collective::kReduce, 10), Algorithm::kTree, true);
  const ArgsRecord b = MakeArgsRecord(Args(Collective::kReduce, 12), Algorithm::kTree, true);
  const ArgsRecord c = MakeArgsRecord(Args(Collective::kReduce, 10, DataType::kInt8), Algorithm::kTree, true);
  const absl::Status s = CompareArgsRecords({a, a, c, b});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("reduce: arguments differ across ranks: rank 2 has type int8 but rank 0 has type float32"));
}

TEST(ArgsRecordTest, IgnoredFieldsDoNotCount) {
  // AllGather has no op or root; AllReduce no root.
  EXPECT_TRUE(CompareArgsRecords({MakeArgsRecord(Args(Collective::kAllGather, 3, DataType::kInt32, ReduceOp::kSum, 0),
                                                 Algorithm::kRing, true),
                                  MakeArgsRecord(Args(Collective::kAllGather, 3, DataType::kInt32, ReduceOp::kMax, 2),
                                                 Algorithm::kRing, true)})
                  .ok());
  EXPECT_TRUE(CompareArgsRecords({MakeArgsRecord(Args(Collective::kAllReduce, 3, DataType::kInt32, ReduceOp::kSum, 0),
                                                 Algorithm::kRing, true),
                                  MakeArgsRecord(Args(Collective::kAllReduce, 3, DataType::kInt32, ReduceOp::kSum, 1),
                                                 Algorithm::kRing, true)})
                  .ok());
}

TEST(ArgsRecordTest, RejectionByAnyRankIsReportedFirst) {
  const ArgsRecord ok = MakeArgsRecord(Args(Collective::kScatter, 5), Algorithm::kLinear, true);
  const ArgsRecord rejected = MakeArgsRecord(Args(Collective::kScatter, 6), Algorithm::kLinear, false);
  EXPECT_THAT(std::string(CompareArgsRecords({ok, ok, ok, rejected}).message()),
              HasSubstr("scatter: rank 3 rejected its arguments"));
}

}  // namespace
}  // namespace kcoll
