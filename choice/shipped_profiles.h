// The profiles shipped beside the library (models/profiles/*.json), found at run time rather than compiled in: a
// machine's measurements are data, replaced by installing or pointing at other files, not by rebuilding.
//
// Where a file is looked for, first match wins:
//   1. $KCOLL_PROFILE_DIR, when set (and then only there);
//   2. the Bazel runfiles of the running program ($RUNFILES_DIR, $TEST_SRCDIR, <program>.runfiles), under
//      kcoll/models/profiles: every Bazel target that depends on //collectives carries them;
//   3. share/kcoll/profiles beside the directory of the library file kcoll's code is in (lib/../share: an install,
//      tools/install.sh) or of the program (bin/../share: the GPU bundle, tools/gpu_bundle.sh).
#ifndef KCOLL_CHOICE_SHIPPED_PROFILES_H_
#define KCOLL_CHOICE_SHIPPED_PROFILES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kcoll {

// The directories searched, in order (those that exist or not; for messages and tests).
std::vector<std::string> ShippedProfileDirectories();

// The path of `file_name` in the first directory that has it; NotFound listing the directories searched.
absl::StatusOr<std::string> FindShippedProfile(absl::string_view file_name);

}  // namespace kcoll

#endif  // KCOLL_CHOICE_SHIPPED_PROFILES_H_
