// Local machine discovery (host, pid, affinity, NUMA, interfaces), CPU lists, the gathering format, the stable hash.
#include "base/rank_info.h"

#include <dirent.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <string>

#include "base/rank_info_json.h"
#include "collectives/topology/gpu_info.h"
#include "collectives/topology/local_machine.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/matchers.h"
#include "tests/test_files.h"

namespace kcoll {
namespace testing {
namespace {

TEST(CpuList, ParsesAndFormatsLinuxRanges) {
  auto cpus = ParseCpuList("0-3,8,10-11\n");
  ASSERT_TRUE(cpus.ok()) << cpus.status();
  EXPECT_THAT(*cpus, ElementsAre(0, 1, 2, 3, 8, 10, 11));
  EXPECT_EQ(FormatCpuList(*cpus), "0-3,8,10-11");
  EXPECT_EQ(FormatCpuList({5, 1, 2, 2, 7}), "1-2,5,7");
  EXPECT_EQ(FormatCpuList({}), "");
  auto empty = ParseCpuList("");
  ASSERT_TRUE(empty.ok());
  EXPECT_THAT(*empty, IsEmpty());
}

TEST(CpuList, RejectsGarbageNamingIt) {
  for (const char* bad : {"1-", "a", "3-1", "-2", "1,,x"}) {
    auto cpus = ParseCpuList(bad);
    ASSERT_FALSE(cpus.ok()) << bad;
    EXPECT_THAT(cpus, IsInvalidArgument(bad));
  }
}

TEST(NumaNodes, AreThoseSharingACoreWithTheAffinity) {
  const std::string dir = TempDir() + "/fake_sysfs_node";
  mkdir(dir.c_str(), 0755);
  for (auto [node, list] : {std::pair<int, const char*>{0, "0-3"}, {1, "4-7"}, {2, "8-11"}}) {
    const std::string node_dir = dir + "/node" + std::to_string(node);
    mkdir(node_dir.c_str(), 0755);
    std::ofstream(node_dir + "/cpulist") << list << "\n";
  }
  mkdir((dir + "/power").c_str(), 0755);  // not a node
  EXPECT_THAT(NumaNodesOf({3, 4}, dir), ElementsAre(0, 1));
  EXPECT_THAT(NumaNodesOf({9}, dir), ElementsAre(2));
  EXPECT_THAT(NumaNodesOf({12}, dir), IsEmpty());
  EXPECT_THAT(NumaNodesOf({0}, dir + "/missing"), IsEmpty());
}

TEST(DiscoverLocalRankInfo, DescribesThisProcess) {
  const RankInfo info = DiscoverLocalRankInfo();
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  EXPECT_EQ(info.host, host);
  EXPECT_EQ(info.pid, getpid());
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  EXPECT_EQ(static_cast<int>(info.cpus.size()), CPU_COUNT(&set));
  for (int c : info.cpus) EXPECT_TRUE(CPU_ISSET(c, &set)) << c;
  EXPECT_FALSE(info.gpu.has_value());  // filled by the GPU owner only
  // Every interface the kernel lists appears (under its name) among the discovered ones.
  std::set<std::string> names;
  for (const NetworkInterface& nic : info.interfaces) names.insert(nic.name);
  if (DIR* d = opendir("/sys/class/net")) {
    while (const dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      EXPECT_EQ(names.count(name), 1u) << "interface " << name << " missing";
    }
    closedir(d);
  }
  for (const NetworkInterface& nic : info.interfaces) {
    if (nic.family == "ipv4") {
      EXPECT_EQ(std::count(nic.address.begin(), nic.address.end(), '.'), 3) << nic.address;
    }
    if (nic.name == "lo") {
      EXPECT_TRUE(nic.loopback);
    }
  }
}

TEST(DiscoverLocalRankInfo, NonceDiffersBetweenCalls) {
  EXPECT_NE(DiscoverLocalRankInfo().nonce, DiscoverLocalRankInfo().nonce);
}

TEST(RankInfoSerialization, RoundTrips) {
  RankInfo info;
  info.host = "node-17";
  info.pid = 4242;
  info.cpus = {0, 1, 2, 8};
  info.numa_nodes = {0, 1};
  info.interfaces = {{"eth0", "ipv4", "10.0.0.7", true, false}, {"ib0", "none", "", false, false}};
  info.gpu = GpuInfo{3, "0000:3b:00.0", "Some GPU"};
  info.nonce = 0xfedcba9876543210ull;
  auto back = DeserializeRankInfo(SerializeRankInfo(info));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(*back == info);
  info.gpu.reset();
  back = DeserializeRankInfo(SerializeRankInfo(info));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(*back == info);
}

TEST(RankInfoSerialization, RejectsBrokenRecords) {
  auto bad = DeserializeRankInfo("{not json");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("not valid JSON"));
  bad = DeserializeRankInfo(R"({"host": "a"})");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("rank info"));
}

TEST(StableHash, IsFnv1a64) {
  // Reference values of 64-bit FNV-1a.
  EXPECT_EQ(StableHash(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(StableHash("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(StableHash("foobar"), 0x85944171f73967e8ull);
}

TEST(GpuInfo, AbsentWithoutCudaOrADevice) {
  auto gpu = CurrentCudaDevice();
  if (!CompiledWithCuda()) {
    ASSERT_TRUE(gpu.ok());
    EXPECT_FALSE(gpu->has_value());
    return;
  }
  if (!gpu.ok()) GTEST_SKIP() << "built with CUDA but no usable device: " << gpu.status();
  ASSERT_TRUE(gpu->has_value());
  EXPECT_GE((*gpu)->device, 0);
  EXPECT_THAT((*gpu)->pci_bus_id, HasSubstr(":"));
  EXPECT_FALSE((*gpu)->name.empty());
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
