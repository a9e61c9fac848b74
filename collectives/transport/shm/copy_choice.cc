#include "collectives/transport/shm/copy_choice.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace kcoll {

CopyChoice::CopyChoice(int explore_every, double weight)
    : explore_every_(std::max(explore_every, 2)), weight_(std::clamp(weight, 1e-3, 1.0)) {}

uint64_t CopyChoice::Group(int kind, size_t bytes) {
  int log2 = 0;
  while (log2 < 63 && (size_t{2} << log2) <= bytes) ++log2;
  return (static_cast<uint64_t>(static_cast<uint32_t>(kind)) << 8) | static_cast<uint64_t>(log2);
}

bool CopyChoice::SingleCopy(uint64_t group) {
  Stats& g = groups_[group];
  const uint64_t call = g.calls++;
  // Measure both ways first, alternating, each for its uncounted first call and kFirstCallsEachWay more.
  if (g.way[0].calls <= kFirstCallsEachWay || g.way[1].calls <= kFirstCallsEachWay) {
    return g.way[1].calls < g.way[0].calls;
  }
  const bool preferred = g.way[1].average < g.way[0].average;
  return call % static_cast<uint64_t>(explore_every_) == 0 ? !preferred : preferred;
}

void CopyChoice::Record(uint64_t group, bool single_copy, double seconds) {
  Way& way = groups_[group].way[single_copy ? 1 : 0];
  if (way.calls++ == 0) return;  // the first call each way pays for first use: not counted
  way.average = way.calls == 2 ? seconds : (1 - weight_) * way.average + weight_ * seconds;
}

bool CopyChoice::Prefers(uint64_t group) const {
  auto it = groups_.find(group);
  if (it == groups_.end()) return false;
  const Stats& g = it->second;
  if (g.way[0].calls <= kFirstCallsEachWay || g.way[1].calls <= kFirstCallsEachWay) return false;
  return g.way[1].average < g.way[0].average;
}

double CopyChoice::AverageSeconds(uint64_t group, bool single_copy) const {
  auto it = groups_.find(group);
  return it == groups_.end() ? 0.0 : it->second.way[single_copy ? 1 : 0].average;
}

std::string CopyChoice::Describe(uint64_t group) const {
  auto it = groups_.find(group);
  if (it == groups_.end()) return "measuring both ways (0 calls)";
  const Stats& g = it->second;
  if (g.way[0].calls <= kFirstCallsEachWay || g.way[1].calls <= kFirstCallsEachWay) {
    return absl::StrFormat("measuring both ways (%d calls)", g.calls);
  }
  const double slots_us = g.way[0].average * 1e6, single_us = g.way[1].average * 1e6;
  const bool single = Prefers(group);
  return absl::StrFormat("%s (%.1f us) over %s (%.1f us) after %d calls", single ? "single copy" : "the slots",
                         single ? single_us : slots_us, single ? "the slots" : "single copy",
                         single ? slots_us : single_us, g.calls);
}

}  // namespace kcoll
