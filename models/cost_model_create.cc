// Where a CostModel comes from: the algorithm's price (models/prices/, found through FindPrice) describes its rounds
// to a PriceBuilder over the model. Kept apart from cost_model.cc, which evaluates the rounds and knows no prices.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "models/cost_model.h"
#include "models/price_builder.h"
#include "models/prices/prices.h"

namespace kcoll {
namespace models {

bool Applies(Collective collective, Algorithm algorithm) { return FindPrice(collective, algorithm) != nullptr; }

std::vector<Algorithm> ApplicableAlgorithms(Collective collective) {
  std::vector<Algorithm> out;
  for (Algorithm a : AllAlgorithms()) {
    if (Applies(collective, a)) out.push_back(a);
  }
  return out;
}

absl::StatusOr<CostModel> CostModel::Create(Collective collective, Algorithm algorithm, const Topology& topology,
                                            const Profile& profile, const CostOptions& options) {
  if (absl::Status s = ValidateTopology(topology); !s.ok()) return s;
  if (absl::Status s = ValidateProfile(profile); !s.ok()) return s;
  if (absl::Status s = ValidateCostOptions(options); !s.ok()) return s;
  if (algorithm == Algorithm::kAuto) {
    return absl::InvalidArgumentError(
        absl::StrCat("algorithm 'auto' has no cost of its own (ChooseAlgorithm picks one) for collective '",
                     CollectiveName(collective), "'"));
  }
  if (!Applies(collective, algorithm)) {
    std::vector<std::string> names;
    for (Algorithm a : ApplicableAlgorithms(collective)) names.emplace_back(AlgorithmName(a));
    return absl::InvalidArgumentError(absl::StrCat("algorithm '", AlgorithmName(algorithm),
                                                   "' does not apply to collective '", CollectiveName(collective),
                                                   "'; it takes: ", absl::StrJoin(names, ", ")));
  }
  CostModel model(collective, algorithm, topology, profile, options);
  PriceBuilder builder(model);
  FindPrice(collective, algorithm)(builder);
  return model;
}

}  // namespace models
}  // namespace kcoll
