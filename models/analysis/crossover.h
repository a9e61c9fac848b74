// Message sizes at which two algorithms cost the same, and at which the chosen algorithm changes.
//
// For a fixed machine, an algorithm's predicted time is piecewise smooth in the size S: affine between the sizes
// where the slowest link of a round changes class (with measured curves, log-log between the measured sizes), and,
// for the pipelined algorithms, where the chunk count ceil(m / chunk_bytes) steps up (the time jumps there by a
// latency). The search samples the difference of the two
// costs on a geometric grid over [min_bytes, max_bytes], bisects every sign change down to a bracket of relative
// width 1e-14, then solves the affine difference exactly inside it. Where the costs jump past each other at a chunk
// step instead of meeting, the crossover is reported with continuous = false at the first size past the jump.
// Two sign changes closer together than one grid step (a factor 2^(1/samples_per_doubling)) can be missed.
#ifndef KCOLL_MODELS_ANALYSIS_CROSSOVER_H_
#define KCOLL_MODELS_ANALYSIS_CROSSOVER_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/names.h"
#include "models/algorithm_choice.h"
#include "models/cost_model.h"
#include "models/machine.h"

namespace kcoll {
namespace models {

struct Crossover {
  double bytes = 0;
  Algorithm below = Algorithm::kAuto;  // the cheaper algorithm just below `bytes`
  Algorithm above = Algorithm::kAuto;  // the cheaper algorithm just above `bytes`
  double below_seconds = 0;            // cost of `below` at `bytes`
  double above_seconds = 0;            // cost of `above` at `bytes`
  bool continuous = true;              // the costs meet (equal within 1e-9 relative) rather than jump past
};

struct CrossoverSearch {
  double min_bytes = 1;
  double max_bytes = 1099511627776.0;  // 1 TiB
  int samples_per_doubling = 8;
};

// InvalidArgument naming the field: 0 < min_bytes < max_bytes, both finite; 1 <= samples_per_doubling <= 1024.
absl::Status ValidateCrossoverSearch(const CrossoverSearch& search);

// Sizes in the search range where `a` and `b` swap places, in increasing order. InvalidArgument if the two models
// are for different collectives or the search is invalid.
absl::StatusOr<std::vector<Crossover>> FindCrossovers(const CostModel& a, const CostModel& b,
                                                      const CrossoverSearch& search = {});

// The crossovers of every pair of algorithms that apply to `collective`, in increasing size.
absl::StatusOr<std::vector<Crossover>> ListCrossovers(Collective collective, const Topology& topology,
                                                      const Profile& profile, const CostOptions& options = {},
                                                      const CrossoverSearch& search = {});

// The sizes at which chooser.Choose(collective, size) changes, in increasing order.
absl::StatusOr<std::vector<Crossover>> ChoiceChanges(const AlgorithmChooser& chooser, Collective collective,
                                                     const CrossoverSearch& search = {});

}  // namespace models
}  // namespace kcoll

#endif  // KCOLL_MODELS_ANALYSIS_CROSSOVER_H_
