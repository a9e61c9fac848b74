#include "collectives/options.h"

#include "base/named_values.h"

namespace kcoll {
namespace {

constexpr NamedValue<ExecBackend> kBackendNames[] = {
    {ExecBackend::kSerial, "serial"}, {ExecBackend::kOpenMP, "openmp"}, {ExecBackend::kCuda, "cuda"}};

constexpr NamedValue<Progress> kProgressNames[] = {{Progress::kThread, "thread"}, {Progress::kEager, "eager"}};

}  // namespace

absl::string_view ExecBackendName(ExecBackend backend) { return NameIn(kBackendNames, backend); }

absl::StatusOr<ExecBackend> ParseExecBackend(absl::string_view text) {
  return ParseNameIn(kBackendNames, text, "execution backend");
}

absl::string_view ProgressName(Progress progress) { return NameIn(kProgressNames, progress); }

absl::StatusOr<Progress> ParseProgress(absl::string_view text) {
  return ParseNameIn(kProgressNames, text, "progress mode");
}

}  // namespace kcoll
