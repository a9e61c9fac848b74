#include "choice/shipped_profiles.h"

#include <dlfcn.h>
#include <unistd.h>

#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/env.h"

namespace kcoll {
namespace {

constexpr char kRunfilesProfiles[] = "/kcoll/models/profiles";
constexpr char kInstalledProfiles[] = "/../share/kcoll/profiles";

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

std::string ProgramPath() {
  char buffer[4096];
  const ssize_t n = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  return n > 0 ? std::string(buffer, n) : std::string();
}

// The file this function's code was loaded from: libkcoll.so when kcoll is a shared library, else the program.
std::string CodePath() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&CodePath), &info) == 0 || info.dli_fname == nullptr) return std::string();
  return info.dli_fname;
}

bool Readable(const std::string& path) { return std::ifstream(path).good(); }

}  // namespace

std::vector<std::string> ShippedProfileDirectories() {
  if (const char* dir = GetEnv("KCOLL_PROFILE_DIR")) return {dir};
  std::vector<std::string> out;
  for (const char* root : {"RUNFILES_DIR", "TEST_SRCDIR"}) {
    if (const char* r = GetEnv(root)) out.push_back(std::string(r) + kRunfilesProfiles);
  }
  const std::string program = ProgramPath();
  if (!program.empty()) out.push_back(program + ".runfiles" + kRunfilesProfiles);
  const std::string code = CodePath();
  if (!code.empty() && code != program) out.push_back(DirectoryOf(code) + kInstalledProfiles);
  if (!program.empty()) out.push_back(DirectoryOf(program) + kInstalledProfiles);
  return out;
}

absl::StatusOr<std::string> FindShippedProfile(absl::string_view file_name) {
  const std::vector<std::string> dirs = ShippedProfileDirectories();
  for (const std::string& dir : dirs) {
    const std::string path = absl::StrCat(dir, "/", file_name);
    if (Readable(path)) return path;
  }
  return absl::NotFoundError(absl::StrCat("no ", file_name, " in ", absl::StrJoin(dirs, ", "),
                                          GetEnv("KCOLL_PROFILE_DIR") == nullptr ? "" : " (KCOLL_PROFILE_DIR)"));
}

}  // namespace kcoll
