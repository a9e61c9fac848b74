#include "collectives/transport/shm/copy_choice.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"

namespace kcoll {

CopyChoice::CopyChoice(Options o)
    : from_bytes_(o.from_bytes),
      explore_every_(static_cast<uint64_t>(std::max(o.explore_every, 2))),
      explore_at_most_every_(std::max(static_cast<uint64_t>(std::max(o.explore_at_most_every, 2)), explore_every_)),
      warmup_calls_(static_cast<uint64_t>(std::max(o.warmup_calls, 1))),
      explore_budget_(std::clamp(o.explore_budget, 1e-3, 1.0)),
      explore_cost_at_most_every_(static_cast<uint64_t>(std::max(o.explore_cost_at_most_every, 2))),
      weight_(std::clamp(o.weight, 1e-3, 1.0)) {}

uint64_t CopyChoice::Group(int kind, size_t bytes) {
  int log2 = 0;
  while (log2 < 63 && (size_t{2} << log2) <= bytes) ++log2;
  return (static_cast<uint64_t>(static_cast<uint32_t>(kind)) << 8) | static_cast<uint64_t>(log2);
}

bool CopyChoice::Measured(const Stats& g) const {
  const uint64_t enough = warmup_calls_ + kFirstCallsEachWay;
  return g.way[0].calls >= enough && g.way[1].calls >= enough;
}

CopyChoice::Call CopyChoice::Next(uint64_t group) {
  Stats& g = groups_[group];
  const uint64_t call = g.calls++;
  // Measure both ways first, one after the other (a change of way costs the calls after it: the other way's memory is
  // cold), each for its uncounted warm-up calls and kFirstCallsEachWay more.
  if (!Measured(g)) return Call{g.way[0].calls >= warmup_calls_ + kFirstCallsEachWay, false};
  if (g.explore_period == 0 || g.decide_next) return Call{g.single, true};  // Decide gives the way
  // An exploration is warmup_calls + 1 calls the other way: the first ones pay for the change and are not counted.
  g.exploring = call >= g.next_explore;
  return Call{g.exploring ? !g.single : g.single, false};
}

bool CopyChoice::Decide(uint64_t group, double slots_seconds, double single_seconds) {
  Stats& g = groups_[group];
  const uint64_t call = g.calls == 0 ? 0 : g.calls - 1;  // the call Next just numbered
  uint64_t gap = explore_every_;
  if (g.explore_period == 0) {  // the first decision: the faster way
    g.single = single_seconds < slots_seconds;
    g.explore_period = explore_every_;
  } else if ((g.single ? slots_seconds : single_seconds) <
             (g.single ? single_seconds : slots_seconds) * (1 - kSwitchMargin)) {
    g.single = !g.single;
    g.explore_period = explore_every_;  // the preference changed: look at the other way often again
  } else {
    g.explore_period = std::min(g.explore_period * 2, explore_at_most_every_);  // still slower: look less often
    // Confirmed slower by an exploration: no more often than the budget affords, an exploration costing about
    // warmup_calls + 1 calls at the other way's time. (After the first decision or a change of way the next look
    // comes soon whatever it costs: one call measured in a burst of noise must not keep the slower way long.)
    const double taken = g.single ? single_seconds : slots_seconds;
    const double other = g.single ? slots_seconds : single_seconds;
    const double cost_in_calls =
        taken > 0 && other > taken ? static_cast<double>(warmup_calls_ + 1) * (other - taken) / taken : 0;
    const uint64_t affordable = static_cast<uint64_t>(
        std::min(std::ceil(cost_in_calls / explore_budget_), static_cast<double>(explore_cost_at_most_every_)));
    gap = std::max(g.explore_period, affordable);
  }
  g.next_explore = call + gap;
  g.decide_next = false;
  return g.single;
}

void CopyChoice::Record(uint64_t group, bool single_copy, double seconds) {
  Stats& g = groups_[group];
  const bool explored = g.exploring && single_copy != g.single;
  g.exploring = false;
  if (explored && g.explore_warmups < warmup_calls_) {
    ++g.explore_warmups;  // an exploration's first calls pay for the change of way
    return;
  }
  Way& way = g.way[single_copy ? 1 : 0];
  if (way.calls++ < warmup_calls_) return;  // the first calls each way pay for first use: not counted
  const double taken = g.way[g.single ? 1 : 0].average;
  if (way.calls == warmup_calls_ + 1 || (explored && seconds < taken)) {
    way.average = seconds;  // a first measure, or an exploration that beat the way taken: its time now
  } else {
    way.average = (1 - weight_) * way.average + weight_ * seconds;
  }
  if (explored) {
    g.explore_warmups = 0;
    g.decide_next = true;
  }
}

std::array<double, 2> CopyChoice::LeastAcrossRanks(const std::vector<std::array<double, 2>>& averages) {
  if (averages.empty()) return {0, 0};
  std::array<double, 2> least = averages[0];
  for (const std::array<double, 2>& rank : averages) {
    for (int way = 0; way < 2; ++way) least[way] = std::min(least[way], rank[way]);
  }
  return least;
}

bool CopyChoice::Prefers(uint64_t group) const {
  auto it = groups_.find(group);
  if (it == groups_.end()) return false;
  const Stats& g = it->second;
  if (!Measured(g)) return false;
  return g.explore_period == 0 ? g.way[1].average < g.way[0].average : g.single;
}

double CopyChoice::AverageSeconds(uint64_t group, bool single_copy) const {
  auto it = groups_.find(group);
  return it == groups_.end() ? 0.0 : it->second.way[single_copy ? 1 : 0].average;
}

std::string CopyChoice::Describe(uint64_t group) const {
  auto it = groups_.find(group);
  if (it == groups_.end()) return "measuring both ways (0 calls)";
  const Stats& g = it->second;
  if (!Measured(g)) {
    return absl::StrFormat("measuring both ways (%d calls)", g.calls);
  }
  return absl::StrFormat("%s after %d calls", DescribeWays(Prefers(group), g.way[0].average, g.way[1].average),
                         g.calls);
}

std::string CopyChoice::DescribeWays(bool single_copy, double slots_seconds, double single_seconds) {
  const double slots_us = slots_seconds * 1e6, single_us = single_seconds * 1e6;
  return absl::StrFormat("%s (%.1f us) over %s (%.1f us)", single_copy ? "single copy" : "the slots",
                         single_copy ? single_us : slots_us, single_copy ? "the slots" : "single copy",
                         single_copy ? slots_us : single_us);
}

}  // namespace kcoll
