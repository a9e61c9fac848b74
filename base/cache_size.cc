#include "base/cache_size.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/byte_size.h"

namespace kcoll {
namespace {

// The first line of `path`, trimmed; empty when unreadable.
std::string FirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return std::string(absl::StripAsciiWhitespace(line));
}

}  // namespace

size_t CacheBytesFromSysfs(const std::string& cache_dir, int level) {
  size_t largest = 0;
  // Entries are index0, index1, ... without gaps; a handful per CPU.
  for (int index = 0; index < 16; ++index) {
    const std::string dir = absl::StrCat(cache_dir, "/index", index);
    const std::string level_text = FirstLine(dir + "/level");
    if (level_text.empty()) break;
    int entry_level = 0;
    if (!absl::SimpleAtoi(level_text, &entry_level) || entry_level != level) continue;
    const std::string type = FirstLine(dir + "/type");
    if (type != "Data" && type != "Unified") continue;
    absl::StatusOr<size_t> bytes = ParseByteSize(FirstLine(dir + "/size"));
    if (bytes.ok()) largest = std::max(largest, *bytes);
  }
  return largest;
}

size_t CacheBytes(int level) {
  const size_t from_sysfs = CacheBytesFromSysfs("/sys/devices/system/cpu/cpu0/cache", level);
  if (from_sysfs > 0) return from_sysfs;
  const int name = level == 1   ? _SC_LEVEL1_DCACHE_SIZE
                   : level == 2 ? _SC_LEVEL2_CACHE_SIZE
                   : level == 3 ? _SC_LEVEL3_CACHE_SIZE
                                : -1;
  if (name < 0) return 0;
  const long bytes = sysconf(name);
  return bytes > 0 ? static_cast<size_t>(bytes) : 0;
}

}  // namespace kcoll
