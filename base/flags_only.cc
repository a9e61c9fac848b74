#include "base/flags_only.h"

#include <cstdio>
#include <vector>

#include "absl/flags/parse.h"
#include "absl/flags/usage.h"

namespace kcoll {

bool ParseFlagsOnly(int argc, char** argv, const char* program, const char* usage) {
  absl::SetProgramUsageMessage(usage);
  const std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
  if (positional.size() <= 1) return true;
  std::fprintf(stderr, "%s: unexpected argument '%s' (every option is a --name=value flag)\n", program, positional[1]);
  return false;
}

}  // namespace kcoll
