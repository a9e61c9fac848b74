#include "choice/machine_profiles.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/env.h"

namespace kcoll {
namespace {

// The value of the first "model name" line of /proc/cpuinfo, or "".
std::string CpuModelName() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (!absl::StartsWith(line, "model name")) continue;
    const size_t colon = line.find(':');
    if (colon != std::string::npos) return line.substr(colon + 1);
  }
  return "";
}

// Lower-case letters and digits; every run of anything else becomes one '_', none at either end.
std::string FileNamePart(absl::string_view text) {
  std::string out;
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) {
      out.push_back(static_cast<char>(std::tolower(u)));
    } else if (!out.empty() && out.back() != '_') {
      out.push_back('_');
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

}  // namespace

std::optional<std::string> MachineProfileDirectory() {
  if (const char* dir = GetEnv("KCOLL_MACHINE_PROFILES")) {
    if (absl::string_view(dir) == "off") return std::nullopt;
    return std::string(dir);
  }
  const char* xdg = GetEnv("XDG_CACHE_HOME");
  if (xdg != nullptr && *xdg == '/') return absl::StrCat(xdg, "/kcoll/profiles");
  const char* home = GetEnv("HOME");
  if (home != nullptr && *home == '/') return absl::StrCat(home, "/.cache/kcoll/profiles");
  return std::nullopt;
}

std::string MachineName() {
  std::string model = FileNamePart(CpuModelName());
  if (model.empty()) model = "unknown_cpu";
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  return absl::StrCat(model, "_", cpus > 0 ? cpus : 1, "cpus");
}

std::string MachineProfileFileName(const std::string& machine, const Topology& topology, TransportKind transport) {
  const int per_node = topology.uniform_ranks_per_node();
  const std::string shape = per_node > 0 ? absl::StrCat(topology.nnodes, "x", per_node)
                                         : absl::StrCat(topology.nnodes, "n", topology.nranks, "r");
  return absl::StrCat(machine, "-", TransportKindName(transport), "-", shape, topology.emulated ? "e" : "", ".json");
}

absl::StatusOr<std::string> MachineProfilePath(const Topology& topology, TransportKind transport) {
  const std::optional<std::string> dir = MachineProfileDirectory();
  if (!dir.has_value()) {
    const char* set = GetEnv("KCOLL_MACHINE_PROFILES");
    return absl::FailedPreconditionError(
        set != nullptr ? absl::StrCat("KCOLL_MACHINE_PROFILES='", set, "' turns the machine's saved profiles off")
                       : std::string("no directory for the machine's saved profiles: set KCOLL_MACHINE_PROFILES "
                                     "(or HOME, XDG_CACHE_HOME) to an absolute path"));
  }
  return absl::StrCat(*dir, "/", MachineProfileFileName(MachineName(), topology, transport));
}

absl::Status MakeDirectories(const std::string& dir) {
  for (size_t end = dir.find('/', 1);; end = dir.find('/', end + 1)) {
    const std::string prefix = dir.substr(0, end);
    if (!prefix.empty() && mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
      return absl::InvalidArgumentError(absl::StrCat("cannot create directory '", prefix, "': ", std::strerror(errno)));
    }
    if (end == std::string::npos) break;
  }
  struct stat info;
  if (stat(dir.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat("'", dir, "' is not a directory"));
  }
  return absl::OkStatus();
}

}  // namespace kcoll
