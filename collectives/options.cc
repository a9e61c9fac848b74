#include "collectives/options.h"

#include "base/named_values.h"

namespace kcoll {
namespace {

constexpr NamedValue<ExecBackend> kBackendNames[] = {
    {ExecBackend::kSerial, "serial"}, {ExecBackend::kOpenMP, "openmp"}, {ExecBackend::kCuda, "cuda"}};

constexpr NamedValue<Progress> kProgressNames[] = {{Progress::kThread, "thread"}, {Progress::kEager, "eager"}};

constexpr NamedValue<Numerics> kNumericsNames[] = {
    {Numerics::kFast, "fast"}, {Numerics::kDeterministic, "deterministic"}, {Numerics::kExact, "exact"}};

}  // namespace

absl::string_view ExecBackendName(ExecBackend backend) { return NameIn(kBackendNames, backend); }

absl::StatusOr<ExecBackend> ParseExecBackend(absl::string_view text) {
  return ParseNameIn(kBackendNames, text, "execution backend");
}

absl::string_view ProgressName(Progress progress) { return NameIn(kProgressNames, progress); }

absl::StatusOr<Progress> ParseProgress(absl::string_view text) {
  return ParseNameIn(kProgressNames, text, "progress mode");
}

absl::string_view NumericsName(Numerics numerics) { return NameIn(kNumericsNames, numerics); }

absl::StatusOr<Numerics> ParseNumerics(absl::string_view text) {
  return ParseNameIn(kNumericsNames, text, "numerics mode");
}

}  // namespace kcoll
