#include "collectives/options.h"

#include "base/named_values.h"

namespace kcoll {
namespace {

constexpr NamedValue<ExecBackend> kBackendNames[] = {
    {ExecBackend::kSerial, "serial"}, {ExecBackend::kOpenMP, "openmp"}, {ExecBackend::kCuda, "cuda"}};

}  // namespace

absl::string_view ExecBackendName(ExecBackend backend) { return NameIn(kBackendNames, backend); }

absl::StatusOr<ExecBackend> ParseExecBackend(absl::string_view text) {
  return ParseNameIn(kBackendNames, text, "execution backend");
}

}  // namespace kcoll
