// Picking the algorithm with the least predicted time (cost_model.h) for a collective of a given size.
//
// Ties (predicted times within a relative 1e-9 of each other) go to the simpler algorithm: the smaller simplicity of
// base/algorithm_list.h (SimplicityRank). For instance ring_pipelined with one channel and one chunk per round costs
// exactly what ring does, and ring is chosen.
#ifndef KCOLL_MODELS_ALGORITHM_CHOICE_H_
#define KCOLL_MODELS_ALGORITHM_CHOICE_H_

#include <vector>

#include "absl/status/statusor.h"
#include "base/names.h"
#include "models/cost_model.h"
#include "models/machine.h"

namespace kcoll {
namespace models {

// Relative difference under which two predicted times count as a tie.
inline constexpr double kTieTolerance = 1e-9;

struct Candidate {
  Algorithm algorithm = Algorithm::kAuto;
  double seconds = 0;
};

// Cost models of every applicable algorithm of some collectives on one machine, built once (the set-up is
// O(n log n) per model in the number of ranks) and then queried cheaply; immutable, so safe to share between
// threads. The communicator keeps one per communicator.
class AlgorithmChooser {
 public:
  // InvalidArgument for an invalid topology, profile or options.
  static absl::StatusOr<AlgorithmChooser> Create(const Topology& topology, const Profile& profile,
                                                 const CostOptions& options = {},
                                                 const std::vector<Collective>& collectives = AllCollectives());

  // Every applicable algorithm with its predicted seconds, in simplicity order. InvalidArgument for a bad `bytes`
  // or a collective the chooser was not built for.
  absl::StatusOr<std::vector<Candidate>> Candidates(Collective collective, double bytes) const;

  // The algorithm with the least predicted time (ties to the simpler one).
  absl::StatusOr<Algorithm> Choose(Collective collective, double bytes) const;

  // The model of one pair, or nullptr if the chooser has none (collective not built, or algorithm not applicable).
  const CostModel* Model(Collective collective, Algorithm algorithm) const;

  const Topology& topology() const { return topology_; }

 private:
  AlgorithmChooser() = default;
  const std::vector<CostModel>* ModelsOf(Collective collective) const;

  Topology topology_;
  std::vector<std::vector<CostModel>> models_;  // per collective (declaration order), in simplicity order
};

// The least-time candidate of `candidates` (non-empty), ties to the simpler algorithm.
Candidate BestCandidate(const std::vector<Candidate>& candidates);

// One-off forms of the above (each builds the models of `collective`).
absl::StatusOr<Algorithm> ChooseAlgorithm(Collective collective, double bytes, const Topology& topology,
                                          const Profile& profile, const CostOptions& options = {});
absl::StatusOr<std::vector<Candidate>> PredictCandidates(Collective collective, double bytes, const Topology& topology,
                                                         const Profile& profile, const CostOptions& options = {});

}  // namespace models
}  // namespace kcoll

#endif  // KCOLL_MODELS_ALGORITHM_CHOICE_H_
