#include "base/cache_size.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace kcoll {
namespace {

namespace fs = std::filesystem;

// A cpu0/cache folder of sysfs's form under the test's temporary directory: one index<i>/ per entry.
class FakeCacheDir {
 public:
  explicit FakeCacheDir(const std::string& name) : dir_(fs::path(std::getenv("TEST_TMPDIR")) / name) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void Add(int level, const std::string& type, const std::string& size) {
    const fs::path entry = dir_ / ("index" + std::to_string(entries_++));
    fs::create_directories(entry);
    std::ofstream(entry / "level") << level << "\n";
    std::ofstream(entry / "type") << type << "\n";
    std::ofstream(entry / "size") << size << "\n";
  }
  std::string path() const { return dir_.string(); }

 private:
  fs::path dir_;
  int entries_ = 0;
};

TEST(CacheSize, ReadsEachLevelsDataOrUnifiedCache) {
  FakeCacheDir dir("epyc");
  dir.Add(1, "Data", "32K");
  dir.Add(1, "Instruction", "64K");
  dir.Add(2, "Unified", "512K");
  dir.Add(3, "Unified", "32768K");
  EXPECT_EQ(CacheBytesFromSysfs(dir.path(), 1), 32u << 10);  // not the larger instruction cache
  EXPECT_EQ(CacheBytesFromSysfs(dir.path(), 2), 512u << 10);
  EXPECT_EQ(CacheBytesFromSysfs(dir.path(), 3), 32u << 20);
}

TEST(CacheSize, AbsentLevelsAndUnreadableFoldersGiveZero) {
  FakeCacheDir dir("no_l3");
  dir.Add(1, "Data", "48K");
  dir.Add(2, "Unified", "2048K");
  EXPECT_EQ(CacheBytesFromSysfs(dir.path(), 3), 0u);
  EXPECT_EQ(CacheBytesFromSysfs(dir.path() + "/missing", 2), 0u);
  FakeCacheDir bad("bad_size");
  bad.Add(3, "Unified", "lots");
  EXPECT_EQ(CacheBytesFromSysfs(bad.path(), 3), 0u);
}

TEST(CacheSize, TheLargestOfSeveralEntriesOfALevel) {
  FakeCacheDir dir("two_l3");
  dir.Add(3, "Unified", "16M");
  dir.Add(3, "Unified", "32M");
  EXPECT_EQ(CacheBytesFromSysfs(dir.path(), 3), 32u << 20);
}

TEST(CacheSize, ThisMachineAgreesWithItsSysfs) {
  const std::string cpu0 = "/sys/devices/system/cpu/cpu0/cache";
  if (!fs::exists(cpu0)) GTEST_SKIP() << cpu0 << " is absent here: CacheBytes falls back to sysconf";
  for (int level : {1, 2, 3}) {
    const size_t from_sysfs = CacheBytesFromSysfs(cpu0, level);
    if (from_sysfs > 0) EXPECT_EQ(CacheBytes(level), from_sysfs) << "level " << level;
  }
  EXPECT_EQ(CacheBytes(0), 0u);
  EXPECT_EQ(CacheBytes(4), 0u);
}

}  // namespace
}  // namespace kcoll
