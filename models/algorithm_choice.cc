#include "models/algorithm_choice.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace kcoll {
namespace models {

absl::StatusOr<AlgorithmChooser> AlgorithmChooser::Create(const Topology& topology, const Profile& profile,
                                                          const CostOptions& options,
                                                          const std::vector<Collective>& collectives) {
  if (absl::Status s = ValidateTopology(topology); !s.ok()) return s;
  if (absl::Status s = ValidateProfile(profile); !s.ok()) return s;
  if (absl::Status s = ValidateCostOptions(options); !s.ok()) return s;
  AlgorithmChooser chooser;
  chooser.topology_ = topology;
  chooser.models_.resize(AllCollectives().size());
  for (Collective collective : collectives) {
    std::vector<CostModel>& models = chooser.models_[static_cast<size_t>(collective)];
    if (!models.empty()) continue;
    std::vector<Algorithm> algorithms = ApplicableAlgorithms(collective);
    std::sort(algorithms.begin(), algorithms.end(),
              [](Algorithm a, Algorithm b) { return SimplicityRank(a) < SimplicityRank(b); });
    for (Algorithm algorithm : algorithms) {
      absl::StatusOr<CostModel> model = CostModel::Create(collective, algorithm, topology, profile, options);
      if (!model.ok()) return model.status();
      models.push_back(*std::move(model));
    }
  }
  return chooser;
}

const std::vector<CostModel>* AlgorithmChooser::ModelsOf(Collective collective) const {
  const size_t index = static_cast<size_t>(collective);
  if (index >= models_.size() || models_[index].empty()) return nullptr;
  return &models_[index];
}

const CostModel* AlgorithmChooser::Model(Collective collective, Algorithm algorithm) const {
  const std::vector<CostModel>* models = ModelsOf(collective);
  if (models == nullptr) return nullptr;
  for (const CostModel& model : *models) {
    if (model.algorithm() == algorithm) return &model;
  }
  return nullptr;
}

absl::StatusOr<std::vector<Candidate>> AlgorithmChooser::Candidates(Collective collective, double bytes) const {
  if (!std::isfinite(bytes) || bytes < 0) {
    return absl::InvalidArgumentError(absl::StrCat("bytes=", bytes, " must be finite and >= 0"));
  }
  const std::vector<CostModel>* models = ModelsOf(collective);
  if (models == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("collective '", CollectiveName(collective), "' is not one this chooser was built for"));
  }
  std::vector<Candidate> candidates;
  for (const CostModel& model : *models) candidates.push_back({model.algorithm(), model.Seconds(bytes)});
  return candidates;
}

Candidate BestCandidate(const std::vector<Candidate>& candidates) {
  Candidate best = candidates.front();
  for (const Candidate& c : candidates) {
    const double tie = kTieTolerance * std::max(std::abs(best.seconds), std::abs(c.seconds));
    if (c.seconds < best.seconds - tie ||
        (std::abs(c.seconds - best.seconds) <= tie && SimplicityRank(c.algorithm) < SimplicityRank(best.algorithm))) {
      best = c;
    }
  }
  return best;
}

absl::StatusOr<Algorithm> AlgorithmChooser::Choose(Collective collective, double bytes) const {
  absl::StatusOr<std::vector<Candidate>> candidates = Candidates(collective, bytes);
  if (!candidates.ok()) return candidates.status();
  return BestCandidate(*candidates).algorithm;
}

absl::StatusOr<Algorithm> ChooseAlgorithm(Collective collective, double bytes, const Topology& topology,
                                          const Profile& profile, const CostOptions& options) {
  absl::StatusOr<AlgorithmChooser> chooser = AlgorithmChooser::Create(topology, profile, options, {collective});
  if (!chooser.ok()) return chooser.status();
  return chooser->Choose(collective, bytes);
}

absl::StatusOr<std::vector<Candidate>> PredictCandidates(Collective collective, double bytes, const Topology& topology,
                                                         const Profile& profile, const CostOptions& options) {
  absl::StatusOr<AlgorithmChooser> chooser = AlgorithmChooser::Create(topology, profile, options, {collective});
  if (!chooser.ok()) return chooser.status();
  return chooser->Candidates(collective, bytes);
}

}  // namespace models
}  // namespace kcoll
