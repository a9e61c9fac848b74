#include "choice/default_algorithm.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/env.h"

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
  const char* env = GetEnv("KCOLL_ALGO");
  if (env == nullptr) return std::optional<Algorithm>();
  return ParseAlgorithmOverride(env, collective);
}

namespace {

// The fallback when the cost model prices none of a collective's algorithms. Below these sizes the latency term
// (alpha times the step count) dominates the alpha-beta cost of the bandwidth-optimal schedule, so the one with
// fewer steps wins. Per collective, on count * elem (see CollectiveArgs
// for what count means); the costs are at the top of each collectives/algorithms/*.cc file.
constexpr size_t kLogStepsMaxTotalBytes = size_t{1} << 20;  // ReduceScatter, AllGather: the whole n-block buffer
constexpr size_t kTreeMaxBytes = size_t{64} << 10;          // Broadcast, Reduce: too small to pipeline
constexpr size_t kTreeMaxBlockBytes = size_t{4} << 10;      // Gather, Scatter: per-rank block
constexpr size_t kScanDoublingMaxBytes = size_t{16} << 10;  // Scan, ExScan: log2(n) steps of the whole buffer

Algorithm SizeBasedChoice(Collective collective, size_t bytes, int nranks) {
  const size_t total = bytes * static_cast<size_t>(nranks);
  switch (collective) {
    case Collective::kAllReduce:
      return Algorithm::kRing;
    case Collective::kReduceScatter:
      return total <= kLogStepsMaxTotalBytes ? Algorithm::kHalvingDoubling : Algorithm::kRing;
    case Collective::kAllGather:
      return total <= kLogStepsMaxTotalBytes ? Algorithm::kRecursiveDoubling : Algorithm::kRing;
    case Collective::kBroadcast:
    case Collective::kReduce:
      return bytes <= kTreeMaxBytes ? Algorithm::kTree : Algorithm::kChain;
    case Collective::kGather:
    case Collective::kScatter:
      return bytes <= kTreeMaxBlockBytes ? Algorithm::kTree : Algorithm::kLinear;
    case Collective::kAllToAll:
    case Collective::kSendRecv:
      return Algorithm::kPairwise;
    case Collective::kBarrier:
      return Algorithm::kRecursiveDoubling;  // dissemination
    case Collective::kAllGatherV:
      return total <= kLogStepsMaxTotalBytes ? Algorithm::kLinear : Algorithm::kRing;
    case Collective::kAllToAllV:
      return Algorithm::kPairwise;
    case Collective::kReduceScatterV:
      return total <= kLogStepsMaxTotalBytes ? Algorithm::kLinear : Algorithm::kRing;
    case Collective::kGatherV:
    case Collective::kScatterV:
      return Algorithm::kLinear;
    case Collective::kScan:
    case Collective::kExScan:
      return bytes <= kScanDoublingMaxBytes ? Algorithm::kRecursiveDoubling : Algorithm::kLinear;
  }
  return Algorithm::kAuto;
}

}  // namespace

absl::StatusOr<Algorithm> DefaultAlgorithm(Collective collective, size_t bytes, const Topology& topology) {
  std::vector<Algorithm> available = AlgorithmsFor(collective);
  if (available.empty()) {
    return absl::UnimplementedError(absl::StrCat(CollectiveName(collective), " has no algorithm yet"));
  }
  const Algorithm choice = SizeBasedChoice(collective, bytes, topology.nranks);
  for (Algorithm a : available) {
    if (a == choice) return a;
  }
  return available.front();
}

}  // namespace kcoll
