#include "calibration/shm_settings.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace kcoll {
namespace calibration {

std::vector<size_t> SlotBytesCandidates(int node_ranks, int slots, size_t max_segment_bytes, size_t default_bytes) {
  const size_t channels = static_cast<size_t>(node_ranks) * static_cast<size_t>(node_ranks);
  std::vector<size_t> candidates;
  for (size_t bytes = 16 * 1024; bytes <= 256 * 1024; bytes *= 2) {
    if (bytes == default_bytes || channels * static_cast<size_t>(slots) * bytes <= max_segment_bytes) {
      candidates.push_back(bytes);
    }
  }
  if (std::find(candidates.begin(), candidates.end(), default_bytes) == candidates.end()) {
    candidates.push_back(default_bytes);
    std::sort(candidates.begin(), candidates.end());
  }
  return candidates;
}

size_t ChooseSlotBytes(const std::vector<size_t>& candidates, const std::vector<Series>& series, size_t default_bytes) {
  if (candidates.empty() || series.size() != candidates.size()) return default_bytes;
  size_t sizes = std::numeric_limits<size_t>::max();
  for (const Series& s : series) sizes = std::min(sizes, s.samples.size());
  std::vector<double> score(candidates.size(), 0);
  for (size_t i = 0; i < sizes; ++i) {
    double fastest = std::numeric_limits<double>::infinity();
    bool complete = true;
    for (const Series& s : series) {
      complete = complete && s.samples[i].seconds > 0;
      fastest = std::min(fastest, s.samples[i].seconds);
    }
    if (!complete) continue;
    for (size_t c = 0; c < candidates.size(); ++c) score[c] += series[c].samples[i].seconds / fastest;
  }
  size_t best = 0, fallback = candidates.size();
  for (size_t c = 0; c < candidates.size(); ++c) {
    if (score[c] < score[best]) best = c;
    if (candidates[c] == default_bytes) fallback = c;
  }
  if (fallback == candidates.size()) return candidates[best];
  return score[best] <= kSlotBytesMargin * score[fallback] ? candidates[best] : default_bytes;
}

int64_t ChooseSingleCopyThreshold(const Series& slots, const Series& single_copy) {
  int64_t threshold = 0;
  // From the largest size down, while single copy keeps winning.
  for (size_t i = slots.samples.size(); i-- > 0;) {
    if (i >= single_copy.samples.size()) return 0;
    const double slots_seconds = slots.samples[i].seconds;
    const double single_seconds = single_copy.samples[i].seconds;
    if (!(slots_seconds > 0 && single_seconds > 0 && single_seconds <= kSingleCopyMargin * slots_seconds)) break;
    threshold = static_cast<int64_t>(slots.samples[i].bytes);
  }
  return threshold;
}

}  // namespace calibration
}  // namespace kcoll
