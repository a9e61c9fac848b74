// Names and parsers of types, ops, collectives, algorithms and the KCOLL_ALGO override syntax.
#include "base/names.h"

#include "base/types.h"
#include "choice/default_algorithm.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/matchers.h"

namespace kcoll {
namespace {

TEST(Names, EveryTypeOpCollectiveAndAlgorithmRoundTrips) {
  for (DataType t : AllDataTypes()) EXPECT_EQ(*ParseDataType(DataTypeName(t)), t);
  for (ReduceOp op : AllReduceOps()) EXPECT_EQ(*ParseReduceOp(ReduceOpName(op)), op);
  for (Collective c : AllCollectives()) EXPECT_EQ(*ParseCollective(CollectiveName(c)), c);
  for (Algorithm a : AllAlgorithms()) EXPECT_EQ(*ParseAlgorithm(AlgorithmName(a)), a);
}

TEST(Names, NcclTestsSpellingsAreAccepted) {
  EXPECT_EQ(*ParseDataType("float"), DataType::kFloat32);
  EXPECT_EQ(*ParseDataType("half"), DataType::kFloat16);
  EXPECT_EQ(*ParseDataType("bfloat16"), DataType::kBfloat16);
  EXPECT_EQ(*ParseDataType("double"), DataType::kFloat64);
  EXPECT_EQ(*ParseDataType("INT32"), DataType::kInt32);
}

TEST(Names, SizesMatchTheWireFormat) {
  EXPECT_EQ(DataTypeSize(DataType::kInt8), 1u);
  EXPECT_EQ(DataTypeSize(DataType::kFloat16), 2u);
  EXPECT_EQ(DataTypeSize(DataType::kBfloat16), 2u);
  EXPECT_EQ(DataTypeSize(DataType::kUint32), 4u);
  EXPECT_EQ(DataTypeSize(DataType::kFloat64), 8u);
  EXPECT_EQ(DataTypeSize(static_cast<DataType>(42)), 0u);
}

TEST(Names, UnknownNamesListTheValidOnes) {
  EXPECT_THAT(ParseDataType("complex").status().message(), HasSubstr("data type 'complex' is not one of: int8"));
  EXPECT_THAT(ParseReduceOp("xor").status().message(), HasSubstr("reduce op 'xor' is not one of: sum, prod"));
  EXPECT_THAT(ParseCollective("allreduce").status().message(), HasSubstr("collective 'allreduce'"));
  EXPECT_THAT(ParseAlgorithm("nvls").status().message(), HasSubstr("algorithm 'nvls' is not one of: auto, ring"));
}

TEST(AlgorithmOverride, SingleNameAppliesWhereImplemented) {
  EXPECT_EQ(*ParseAlgorithmOverride("ring", Collective::kAllReduce), Algorithm::kRing);
  EXPECT_EQ(*ParseAlgorithmOverride("  RING ", Collective::kAllReduce), Algorithm::kRing);
  EXPECT_FALSE(ParseAlgorithmOverride("", Collective::kAllReduce)->has_value());
  // 'chain' is no AllReduce algorithm: the override says nothing about AllReduce.
  EXPECT_FALSE(ParseAlgorithmOverride("chain", Collective::kAllReduce)->has_value());
}

TEST(AlgorithmOverride, PerCollectiveAssignments) {
  const char* text = "broadcast=tree, all_reduce=ring";
  EXPECT_EQ(*ParseAlgorithmOverride(text, Collective::kAllReduce), Algorithm::kRing);
  EXPECT_EQ(*ParseAlgorithmOverride(text, Collective::kBroadcast), Algorithm::kTree);
  EXPECT_FALSE(ParseAlgorithmOverride(text, Collective::kAllGather)->has_value());
}

TEST(AlgorithmOverride, ErrorsNameTheBadPart) {
  EXPECT_THAT(ParseAlgorithmOverride("rng", Collective::kAllReduce).status().message(),
              HasSubstr("KCOLL_ALGO: algorithm 'rng'"));
  EXPECT_THAT(ParseAlgorithmOverride("all_reduce=ring,bcast=tree", Collective::kAllReduce).status().message(),
              HasSubstr("KCOLL_ALGO: collective 'bcast'"));
  EXPECT_THAT(ParseAlgorithmOverride("all_reduce=ring,tree", Collective::kAllReduce).status().message(),
              HasSubstr("'tree' is not collective=algorithm"));
}

}  // namespace
}  // namespace kcoll
