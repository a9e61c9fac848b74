#include "collectives/transport/shm/copy_choice.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"

namespace kcoll {

CopyChoice::CopyChoice(Options o)
    : from_bytes_(o.from_bytes),
      explore_every_(static_cast<uint64_t>(std::max(o.explore_every, 2))),
      explore_at_most_every_(std::max(static_cast<uint64_t>(std::max(o.explore_at_most_every, 2)), explore_every_)),
      explore_budget_(std::clamp(o.explore_budget, 1e-3, 1.0)),
      explore_cost_at_most_every_(static_cast<uint64_t>(std::max(o.explore_cost_at_most_every, 2))),
      weight_(std::clamp(o.weight, 1e-3, 1.0)) {}

uint64_t CopyChoice::Group(int kind, size_t bytes) {
  int log2 = 0;
  while (log2 < 63 && (size_t{2} << log2) <= bytes) ++log2;
  return (static_cast<uint64_t>(static_cast<uint32_t>(kind)) << 8) | static_cast<uint64_t>(log2);
}

bool CopyChoice::Measured(const Stats& g) {
  return g.way[0].calls > kFirstCallsEachWay && g.way[1].calls > kFirstCallsEachWay;
}

CopyChoice::Call CopyChoice::Next(uint64_t group) {
  Stats& g = groups_[group];
  const uint64_t call = g.calls++;
  // Measure both ways first, one after the other (a change of way costs the first call after it: the other way's
  // memory is cold), each for its uncounted first call and kFirstCallsEachWay more.
  if (!Measured(g)) return Call{g.way[0].calls > kFirstCallsEachWay, false};
  if (g.explore_period == 0 || g.decide_next) return Call{g.single, true};  // Decide gives the way
  // An exploration is two calls the other way: the first pays for the change and is not counted.
  g.exploring = call >= g.next_explore;
  return Call{g.exploring ? !g.single : g.single, false};
}

bool CopyChoice::Decide(uint64_t group, double slots_seconds, double single_seconds) {
  Stats& g = groups_[group];
  const uint64_t call = g.calls == 0 ? 0 : g.calls - 1;  // the call Next just numbered
  if (g.explore_period == 0) {                           // the first decision: the faster way
    g.single = single_seconds < slots_seconds;
    g.explore_period = explore_every_;
  } else if ((g.single ? slots_seconds : single_seconds) <
             (g.single ? single_seconds : slots_seconds) * (1 - kSwitchMargin)) {
    g.single = !g.single;
    g.explore_period = explore_every_;  // the preference changed: look at the other way often again
  } else {
    g.explore_period = std::min(g.explore_period * 2, explore_at_most_every_);  // still slower: look less often
  }
  // An exploration costs about two calls at the other way's time: no more often than the budget affords.
  const double taken = g.single ? single_seconds : slots_seconds;
  const double other = g.single ? slots_seconds : single_seconds;
  const double cost_in_calls = taken > 0 && other > taken ? 2 * (other - taken) / taken : 0;
  const uint64_t affordable = static_cast<uint64_t>(
      std::min(std::ceil(cost_in_calls / explore_budget_), static_cast<double>(explore_cost_at_most_every_)));
  g.next_explore = call + std::max(g.explore_period, affordable);
  g.decide_next = false;
  return g.single;
}

void CopyChoice::Record(uint64_t group, bool single_copy, double seconds) {
  Stats& g = groups_[group];
  const bool explored = g.exploring && single_copy != g.single;
  g.exploring = false;
  if (explored && !g.explore_warmed) {
    g.explore_warmed = true;  // the exploration's first call: it paid for the change of way
    return;
  }
  Way& way = g.way[single_copy ? 1 : 0];
  if (way.calls++ == 0) return;  // the first call each way pays for first use: not counted
  const double taken = g.way[g.single ? 1 : 0].average;
  if (way.calls == 2 || (explored && seconds < taken)) {
    way.average = seconds;  // a first measure, or an exploration that beat the way taken: its time now
  } else {
    way.average = (1 - weight_) * way.average + weight_ * seconds;
  }
  if (explored) {
    g.explore_warmed = false;
    g.decide_next = true;
  }
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
