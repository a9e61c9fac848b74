// Files a test writes and reads back: where to put them, the host name log lines carry, a file's lines.
#ifndef KCOLL_TESTS_TEST_FILES_H_
#define KCOLL_TESTS_TEST_FILES_H_

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"

namespace kcoll {
namespace testing {

// Bazel's per-test scratch directory, or /tmp outside Bazel.
inline std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

inline std::string Host() {
  char buf[256] = {};
  gethostname(buf, sizeof(buf) - 1);
  return buf;
}

// The non-empty lines of the file at `path` (none when it cannot be read).
inline std::vector<std::string> ReadLines(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return absl::StrSplit(text.str(), '\n', absl::SkipEmpty());
}

}  // namespace testing
}  // namespace kcoll

#endif  // KCOLL_TESTS_TEST_FILES_H_
