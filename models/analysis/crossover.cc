#include "models/analysis/crossover.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "absl/strings/str_cat.h"

namespace kcoll {
namespace models {

namespace {

constexpr double kBracketWidth = 1e-14;  // relative width at which bisection stops
constexpr double kEqualCost = 1e-9;      // relative difference under which two costs meet

// Geometric grid over [min_bytes, max_bytes], both ends included.
std::vector<double> Grid(const CrossoverSearch& search) {
  std::vector<double> grid;
  const double step = std::exp2(1.0 / search.samples_per_doubling);
  for (int i = 0;; ++i) {
    const double x = search.min_bytes * std::pow(step, i);
    if (x >= search.max_bytes) break;
    grid.push_back(x);
  }
  grid.push_back(search.max_bytes);
  return grid;
}

// Narrows [lo, hi], where `same_as_lo` holds at lo and fails at hi, to the switch point.
void Bisect(const std::function<bool(double)>& same_as_lo, double& lo, double& hi) {
  for (int i = 0; i < 200 && hi - lo > kBracketWidth * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi) break;
    (same_as_lo(mid) ? lo : hi) = mid;
  }
}

// Where a - b changes sign inside [lo, hi] (a tiny bracket): the root of the affine interpolation when the sign
// does change, else hi. Fills in the crossover's size, costs and continuity; `a_cheaper_below` orders them.
Crossover Settle(const CostModel& a, const CostModel& b, double lo, double hi, bool a_cheaper_below) {
  const double d_lo = a.Seconds(lo) - b.Seconds(lo);
  const double d_hi = a.Seconds(hi) - b.Seconds(hi);
  double x = hi;
  if ((d_lo <= 0 && d_hi >= 0) || (d_lo >= 0 && d_hi <= 0)) {
    x = d_lo == d_hi ? lo : lo + (hi - lo) * d_lo / (d_lo - d_hi);
    x = std::clamp(x, lo, hi);
  }
  const double sa = a.Seconds(x);
  const double sb = b.Seconds(x);
  if (std::abs(sa - sb) > kEqualCost * std::max(sa, sb)) x = hi;  // a jump, not a meeting
  Crossover c;
  c.bytes = x;
  c.below = a_cheaper_below ? a.algorithm() : b.algorithm();
  c.above = a_cheaper_below ? b.algorithm() : a.algorithm();
  c.below_seconds = a_cheaper_below ? a.Seconds(x) : b.Seconds(x);
  c.above_seconds = a_cheaper_below ? b.Seconds(x) : a.Seconds(x);
  c.continuous = std::abs(c.below_seconds - c.above_seconds) <= kEqualCost * std::max(c.below_seconds, c.above_seconds);
  return c;
}

// -1 if a is cheaper at x, +1 if b is, 0 for a tie.
int Sign(const CostModel& a, const CostModel& b, double x) {
  const double sa = a.Seconds(x);
  const double sb = b.Seconds(x);
  if (std::abs(sa - sb) <= 1e-12 * std::max(std::abs(sa), std::abs(sb))) return 0;
  return sa < sb ? -1 : 1;
}

// The chooser switches from `a` to `b` inside [lo, hi] once b is cheaper by more than the tie tolerance; the two
// costs meet a relative 1e-9 or so before that. Widens the bracket until the sign of a - b changes across it, then
// settles on the meeting point (or, if the costs jump past each other, on hi).
Crossover MeetingPoint(const CostModel& a, const CostModel& b, double lo, double hi) {
  for (double widen = 1e-9; widen <= 1e-3; widen *= 10) {
    double l = lo * (1 - widen), h = hi * (1 + widen);
    if (Sign(a, b, l) < 0 && Sign(a, b, h) > 0) {
      Bisect([&](double m) { return Sign(a, b, m) < 0; }, l, h);
      return Settle(a, b, l, h, /*a_cheaper_below=*/true);
    }
  }
  return Settle(a, b, lo, hi, /*a_cheaper_below=*/true);
}

}  // namespace

absl::Status ValidateCrossoverSearch(const CrossoverSearch& search) {
  if (!std::isfinite(search.min_bytes) || search.min_bytes <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("crossover search min_bytes=", search.min_bytes, " must be finite and > 0"));
  }
  if (!std::isfinite(search.max_bytes) || search.max_bytes <= search.min_bytes) {
    return absl::InvalidArgumentError(absl::StrCat("crossover search max_bytes=", search.max_bytes,
                                                   " must be finite and > min_bytes=", search.min_bytes));
  }
  if (search.samples_per_doubling < 1 || search.samples_per_doubling > 1024) {
    return absl::InvalidArgumentError(
        absl::StrCat("crossover search samples_per_doubling=", search.samples_per_doubling, " must be in [1, 1024]"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Crossover>> FindCrossovers(const CostModel& a, const CostModel& b,
                                                      const CrossoverSearch& search) {
  if (absl::Status s = ValidateCrossoverSearch(search); !s.ok()) return s;
  if (a.collective() != b.collective()) {
    return absl::InvalidArgumentError(absl::StrCat("cannot compare collective '", CollectiveName(a.collective()),
                                                   "' with collective '", CollectiveName(b.collective()), "'"));
  }
  std::vector<Crossover> out;
  int last_sign = 0;
  double last_x = 0;
  for (double x : Grid(search)) {
    const int sign = Sign(a, b, x);
    if (sign == 0) continue;
    if (last_sign != 0 && sign != last_sign) {
      double lo = last_x, hi = x;
      const int lo_sign = last_sign;
      Bisect([&](double m) { return Sign(a, b, m) == lo_sign; }, lo, hi);
      out.push_back(Settle(a, b, lo, hi, /*a_cheaper_below=*/lo_sign < 0));
    }
    last_sign = sign;
    last_x = x;
  }
  return out;
}

absl::StatusOr<std::vector<Crossover>> ListCrossovers(Collective collective, const Topology& topology,
                                                      const Profile& profile, const CostOptions& options,
                                                      const CrossoverSearch& search) {
  absl::StatusOr<AlgorithmChooser> chooser = AlgorithmChooser::Create(topology, profile, options, {collective});
  if (!chooser.ok()) return chooser.status();
  const std::vector<Algorithm> algorithms = ApplicableAlgorithms(collective);
  std::vector<Crossover> out;
  for (size_t i = 0; i < algorithms.size(); ++i) {
    for (size_t j = i + 1; j < algorithms.size(); ++j) {
      absl::StatusOr<std::vector<Crossover>> found = FindCrossovers(*chooser->Model(collective, algorithms[i]),
                                                                    *chooser->Model(collective, algorithms[j]), search);
      if (!found.ok()) return found.status();
      out.insert(out.end(), found->begin(), found->end());
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Crossover& x, const Crossover& y) { return x.bytes < y.bytes; });
  return out;
}

absl::StatusOr<std::vector<Crossover>> ChoiceChanges(const AlgorithmChooser& chooser, Collective collective,
                                                     const CrossoverSearch& search) {
  if (absl::Status s = ValidateCrossoverSearch(search); !s.ok()) return s;
  auto choose = [&](double x) { return chooser.Choose(collective, x); };
  if (absl::StatusOr<Algorithm> first = choose(search.min_bytes); !first.ok()) return first.status();
  std::vector<Crossover> out;
  Algorithm last = *choose(search.min_bytes);
  double last_x = search.min_bytes;
  for (double x : Grid(search)) {
    const Algorithm now = *choose(x);
    // Usually one change per grid step; the loop also catches several.
    for (int guard = 0; last != now && guard < 16; ++guard) {
      double lo = last_x, hi = x;
      const Algorithm before = last;
      Bisect([&](double m) { return *choose(m) == before; }, lo, hi);
      const Algorithm after = *choose(hi);
      out.push_back(MeetingPoint(*chooser.Model(collective, before), *chooser.Model(collective, after), lo, hi));
      last = after;
      last_x = hi;
    }
    last = now;
    last_x = x;
  }
  return out;
}

}  // namespace models
}  // namespace kcoll
