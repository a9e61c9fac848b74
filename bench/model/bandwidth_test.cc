// busbw and ideal-bandwidth arithmetic against values computed by hand from nccl-tests' PERFORMANCE.md (the busbw
// factors) and the ideal-bandwidth note (its worked examples).
#include "bench/model/bandwidth.h"

#include <cstdio>
#include <fstream>
#include <string>

#include "bench/data/layout.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/matchers.h"

namespace kcoll {
namespace bench {
namespace {

TEST(BandwidthTest, BusBwFactorsOfPerformanceMd) {
  // AllReduce: 2(n-1)/n.
  EXPECT_DOUBLE_EQ(BusBwFactor(Collective::kAllReduce, 1), 0.0);
  EXPECT_DOUBLE_EQ(BusBwFactor(Collective::kAllReduce, 2), 1.0);
  EXPECT_DOUBLE_EQ(BusBwFactor(Collective::kAllReduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(BusBwFactor(Collective::kAllReduce, 16), 1.875);
  // ReduceScatter, AllGather (and nccl-tests' alltoall, gather, scatter): (n-1)/n.
  for (Collective c : {Collective::kReduceScatter, Collective::kAllGather, Collective::kAllToAll, Collective::kGather,
                       Collective::kScatter}) {
    EXPECT_DOUBLE_EQ(BusBwFactor(c, 4), 0.75) << CollectiveName(c);
    EXPECT_DOUBLE_EQ(BusBwFactor(c, 8), 0.875) << CollectiveName(c);
  }
  // Broadcast, Reduce, SendRecv: 1 whatever n.
  for (Collective c : {Collective::kBroadcast, Collective::kReduce, Collective::kSendRecv}) {
    EXPECT_DOUBLE_EQ(BusBwFactor(c, 2), 1.0);
    EXPECT_DOUBLE_EQ(BusBwFactor(c, 64), 1.0);
  }
  EXPECT_DOUBLE_EQ(BusBwFactor(Collective::kAllReduce, 0), 0.0);
}

TEST(BandwidthTest, AlgBwAndBusBwInGBPerSecond) {
  // 1 GB in 0.1 s is 10 GB/s of algbw; an AllReduce on 16 ranks moves 2*15/16 of it per rank: 18.75 GB/s.
  // (The ideal-bandwidth note prints 19.375 for this example, which its own formula 1*2*15/(0.1*16) does not give.)
  EXPECT_DOUBLE_EQ(AlgBwGBps(1e9, 0.1), 10.0);
  EXPECT_DOUBLE_EQ(BusBwGBps(Collective::kAllReduce, 1e9, 0.1, 16), 18.75);
  // AllGather of 8 MB total on 4 ranks in 1 ms: algbw 8 GB/s, busbw 6 GB/s.
  EXPECT_DOUBLE_EQ(BusBwGBps(Collective::kAllGather, 8e6, 1e-3, 4), 6.0);
  // Broadcast of 4 MB in 2 ms: 2 GB/s either way.
  EXPECT_DOUBLE_EQ(BusBwGBps(Collective::kBroadcast, 4e6, 2e-3, 8), 2.0);
  EXPECT_DOUBLE_EQ(AlgBwGBps(1e6, 0), 0.0);
}

TEST(BandwidthTest, IdealOnOneNodeIsTheLinkBandwidth) { EXPECT_THAT(*IdealBusBwGBps({450, 0, 8, 1}), DoubleEq(450)); }

TEST(BandwidthTest, IdealOnTwoNodesOfEightFromTheNote) {
  // B = 450, I = 100, P = 8, Q = 2: min(100*15*2/(16*1), 450*15/14) = min(187.5, 482.1) = 187.5 GB/s.
  EXPECT_THAT(*IdealBusBwGBps({450, 100, 8, 2}), DoubleEq(187.5));
  // With a much faster network the intra-node term binds: 450*15/14.
  EXPECT_THAT(*IdealBusBwGBps({450, 1e6, 8, 2}), DoubleEq(450.0 * 15 / 14));
}

TEST(BandwidthTest, IdealAtASizeTakesTheBoundThatTakesLonger) {
  // AllReduce on 2 ranks (factor 1): 8 B in a 0.08 us floor is 0.1 GB/s, far below a 20 GB/s bandwidth bound.
  EXPECT_NEAR(IdealBusBwAtSize(Collective::kAllReduce, 8, 2, 20, 0.08e-6), 0.1, 1e-12);
  // 16 MB at 20 GB/s takes 0.8 ms, far above the floor: the bandwidth bound.
  EXPECT_DOUBLE_EQ(IdealBusBwAtSize(Collective::kAllReduce, 16e6, 2, 20, 0.08e-6), 20);
  // 1.6 KB crosses over: both bounds give 0.08 us.
  EXPECT_NEAR(IdealBusBwAtSize(Collective::kAllReduce, 1600, 2, 20, 0.08e-6), 20, 1e-9);
  // One bound unknown: the other; both unknown: 0; barrier has no busbw, so only the bandwidth bound counts.
  EXPECT_NEAR(IdealBusBwAtSize(Collective::kAllReduce, 8, 2, 0, 0.08e-6), 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(IdealBusBwAtSize(Collective::kAllReduce, 8, 2, 20, 0), 20);
  EXPECT_DOUBLE_EQ(IdealBusBwAtSize(Collective::kAllReduce, 8, 2, 0, 0), 0);
  EXPECT_DOUBLE_EQ(IdealBusBwAtSize(Collective::kBarrier, 0, 2, 20, 0.08e-6), 20);
}

TEST(BandwidthTest, IdealRefusesWhatItCannotCompute) {
  EXPECT_THAT(std::string(IdealBusBwGBps({0, 0, 2, 1}).status().message()), HasSubstr("intra_bw"));
  EXPECT_THAT(std::string(IdealBusBwGBps({10, 0, 2, 2}).status().message()), HasSubstr("inter_bw"));
  EXPECT_DOUBLE_EQ(*IdealBusBwGBps({10, 5, 1, 4}), 5);  // one rank per node: the inter-node link alone
  EXPECT_THAT(std::string(IdealBusBwGBps({10, 5, 0, 1}).status().message()), HasSubstr("ranks_per_node=0"));
}

TEST(BandwidthTest, ProfileGivesBandwidthsFromBeta) {
  const std::string path = ::testing::TempDir() + "/profile.json";
  {
    std::ofstream out(path);
    out << R"({"schema_version": 1, "description": "test",
              "intra": {"alpha_s": 1e-6, "beta_s_per_byte": 1e-10},
              "inter": {"alpha_s": 5e-6, "beta_s_per_byte": 4e-10}, "gamma_s_per_byte": 0,
              "memcpy_bytes_per_s": 0})";
  }
  auto p = LoadProfileBandwidths(path);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_THAT(p->intra_gbps, DoubleEq(10.0));
  EXPECT_THAT(p->inter_gbps, DoubleEq(2.5));
  EXPECT_EQ(p->description, "test");
}

TEST(BandwidthTest, ProfileErrorsNameTheFileAndField) {
  const std::string dir = ::testing::TempDir();
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir + "/" + name) << text;
    return dir + "/" + name;
  };
  auto error = [](const std::string& path) { return std::string(LoadProfileBandwidths(path).status().message()); };
  EXPECT_THAT(error(dir + "/missing.json"), HasSubstr("missing.json' cannot be read"));
  EXPECT_THAT(error(write("bad.json", "{not json")), HasSubstr("bad.json: profile: not valid JSON"));
  EXPECT_THAT(error(write("v2.json", R"({"schema_version": 2})")),
              HasSubstr("v2.json: profile field 'schema_version' is 2"));
  EXPECT_THAT(error(write("nointra.json", R"({"schema_version": 1})")), HasSubstr("'intra' is missing"));
  const std::string zero = R"({"schema_version": 1, "intra": {"alpha_s": 0, "beta_s_per_byte": 0},
      "inter": {"alpha_s": 0, "beta_s_per_byte": 1e-9}, "gamma_s_per_byte": 0, "memcpy_bytes_per_s": 0})";
  EXPECT_THAT(error(write("zero.json", zero)), HasSubstr("zero.json: intra.beta_s_per_byte is 0"));
}

// MakeLayout for 1 KiB of float on 4 ranks, with its element counts (per rank, sent, received) checked.
Layout CheckedLayout(Collective c, size_t count, size_t send_count, size_t recv_count) {
  const Layout l = MakeLayout(c, 1024, 4, 4);
  EXPECT_EQ(l.count, count) << CollectiveName(c);
  EXPECT_EQ(l.send_count, send_count) << CollectiveName(c);
  EXPECT_EQ(l.recv_count, recv_count) << CollectiveName(c);
  return l;
}

TEST(LayoutTest, NcclTestsCountsPerCollective) {
  EXPECT_EQ(CheckedLayout(Collective::kAllReduce, 256, 256, 256).bytes, 1024u);
  const Layout ag = CheckedLayout(Collective::kAllGather, 64, 64, 256);
  EXPECT_EQ(ag.send_inplace_offset, 64u);
  EXPECT_EQ(ag.recv_inplace_offset, 0u);
  EXPECT_EQ(ag.bytes, 1024u);
  const Layout rs = CheckedLayout(Collective::kReduceScatter, 64, 256, 64);
  EXPECT_EQ(rs.recv_inplace_offset, 64u);
  EXPECT_EQ(rs.bytes, 1024u);
  CheckedLayout(Collective::kAllToAll, 64, 256, 256);
  Layout g = MakeLayout(Collective::kGather, 1024, 4, 4);
  EXPECT_EQ(g.count, 64u);
  EXPECT_EQ(g.recv_count, 256u);
  Layout s = MakeLayout(Collective::kScatter, 1024, 4, 4);
  EXPECT_EQ(s.count, 64u);
  EXPECT_EQ(s.send_count, 256u);
  EXPECT_EQ(s.recv_inplace_offset, 64u);

  for (Collective c : {Collective::kBroadcast, Collective::kReduce, Collective::kSendRecv}) {
    EXPECT_EQ(MakeLayout(c, 1024, 4, 4).count, 256u);
  }
}

TEST(LayoutTest, SizesThatDoNotDivideRoundDown) {
  // 1000 B of float is 250 elements; on 3 ranks each gets 83, so the reported size is 83 * 3 * 4 = 996.
  Layout ag = MakeLayout(Collective::kAllGather, 1000, 4, 3);
  EXPECT_EQ(ag.count, 83u);
  EXPECT_EQ(ag.bytes, 996u);
  // Too small for every rank to get an element.
  EXPECT_EQ(MakeLayout(Collective::kAllGather, 8, 4, 4).count, 0u);
  EXPECT_EQ(MakeLayout(Collective::kAllGather, 8, 4, 4).bytes, 0u);
  // Partial elements are dropped.
  EXPECT_EQ(MakeLayout(Collective::kAllReduce, 10, 4, 2).count, 2u);
  EXPECT_EQ(MakeLayout(Collective::kAllReduce, 10, 4, 2).bytes, 8u);
}

}  // namespace
}  // namespace bench
}  // namespace kcoll
