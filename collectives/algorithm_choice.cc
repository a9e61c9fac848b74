#include "collectives/algorithm_choice.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "collectives/algorithms/registry.h"

namespace kcoll {

absl::StatusOr<std::optional<Algorithm>> ParseAlgorithmOverride(absl::string_view text, Collective collective) {
  text = absl::StripAsciiWhitespace(text);
  if (text.empty()) return std::optional<Algorithm>();
  if (text.find('=') == absl::string_view::npos) {
    auto algorithm = ParseAlgorithm(text);
    if (!algorithm.ok()) return absl::InvalidArgumentError(absl::StrCat("KCOLL_ALGO: ", algorithm.status().message()));
    for (Algorithm a : AlgorithmsFor(collective)) {
      if (a == *algorithm) return std::optional<Algorithm>(a);
    }
    return std::optional<Algorithm>();  // not implemented for this collective: leave the choice to kcoll
  }
  std::optional<Algorithm> found;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    std::vector<absl::string_view> kv = absl::StrSplit(item, absl::MaxSplits('=', 1));
    if (kv.size() != 2) {
      return absl::InvalidArgumentError(absl::StrCat("KCOLL_ALGO: '", item, "' is not collective=algorithm"));
    }
    auto c = ParseCollective(absl::StripAsciiWhitespace(kv[0]));
    if (!c.ok()) return absl::InvalidArgumentError(absl::StrCat("KCOLL_ALGO: ", c.status().message()));
    auto a = ParseAlgorithm(absl::StripAsciiWhitespace(kv[1]));
    if (!a.ok()) return absl::InvalidArgumentError(absl::StrCat("KCOLL_ALGO: ", a.status().message()));
    if (*c == collective) found = *a;
  }
  return found;
}

absl::StatusOr<std::optional<Algorithm>> AlgorithmFromEnv(Collective collective) {
  const char* env = std::getenv("KCOLL_ALGO");
  if (env == nullptr) return std::optional<Algorithm>();
  return ParseAlgorithmOverride(env, collective);
}

absl::StatusOr<Algorithm> DefaultAlgorithm(Collective collective, size_t /*bytes*/, const Topology& /*topology*/) {
  std::vector<Algorithm> available = AlgorithmsFor(collective);
  if (available.empty()) {
    return absl::UnimplementedError(absl::StrCat(CollectiveName(collective), " has no algorithm yet"));
  }
  return available.front();
}

}  // namespace kcoll
