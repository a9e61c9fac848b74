#include "collectives/auto_choice.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "collectives/algorithm_choice.h"
#include "collectives/algorithms/registry.h"
#include "collectives/status_macros.h"
#include "models/bus_bandwidth.h"
#include "models/calibration.h"

namespace kcoll {
namespace {

// The pipelined algorithms' default chunk (collectives/algorithms: 512 KiB).
constexpr double kImplementationChunkBytes = 512 * 1024;

absl::StatusOr<models::Profile> LoadNamed(const std::string& setting, const std::string& path) {
  absl::StatusOr<models::Profile> profile = models::LoadProfile(path);
  if (!profile.ok()) {
    // LoadProfile's messages name the path ("profile path '...' cannot be read", "<path>: profile field ...").
    return absl::InvalidArgumentError(absl::StrCat(setting, ": ", profile.status().message()));
  }
  return profile;
}

}  // namespace

models::Profile BuiltInProfile() {
  models::Profile p;
  p.intra.alpha_s = 1.0e-6;
  p.intra.beta_s_per_byte = 1.0 / 5.0e9;
  p.inter = p.intra;
  p.gamma_s_per_byte = 1.0 / 2.0e9;
  p.memcpy_bytes_per_s = 5.0e9;
  p.description =
      "kcoll built-in: one shared-memory CPU node, measured by //bench:calibrate with 2 ranks on a 2-core VM "
      "(models/profiles/this_machine_2ranks.json); inter-node = intra-node";
  return p;
}

absl::StatusOr<ProfileChoice> ChooseProfile(const std::string& profile_path) {
  ProfileChoice choice;
  if (!profile_path.empty()) {
    KCOLL_ASSIGN_OR_RETURN(choice.profile, LoadNamed("profile_path", profile_path));
    choice.source = absl::StrCat("profile_path=", profile_path);
    return choice;
  }
  const char* env = std::getenv("KCOLL_PROFILE");
  if (env != nullptr && *env != '\0') {
    KCOLL_ASSIGN_OR_RETURN(choice.profile, LoadNamed("KCOLL_PROFILE", env));
    choice.source = absl::StrCat("KCOLL_PROFILE=", env);
    return choice;
  }
  choice.profile = BuiltInProfile();
  choice.source = "built-in";
  return choice;
}

models::Topology ModelTopology(const Topology& topology) {
  models::Topology t;
  const int per_node = topology.uniform_ranks_per_node();
  if (per_node > 0) {
    t.nodes = topology.nnodes;
    t.ranks_per_node = per_node;
  } else {
    t.nodes = topology.nranks;
    t.ranks_per_node = 1;
  }
  t.nics_per_node = 1;
  t.intra_links_per_rank = 1;
  return t;
}

models::CostOptions ModelCostOptions() {
  models::CostOptions options;
  options.channels = 0;  // one per NIC: one
  options.chunk_bytes = kImplementationChunkBytes;
  return options;
}

absl::StatusOr<AutoChoice> AutoChoice::Create(const Topology& topology, ProfileChoice profile) {
  absl::StatusOr<models::AlgorithmChooser> chooser =
      models::AlgorithmChooser::Create(ModelTopology(topology), profile.profile, ModelCostOptions());
  if (!chooser.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("profile (", profile.source, "): ", chooser.status().message()));
  }
  return AutoChoice(topology, *std::move(chooser), std::move(profile));
}

absl::StatusOr<std::vector<models::Candidate>> AutoChoice::Candidates(Collective collective, size_t bytes,
                                                                      const std::vector<Algorithm>& registered) const {
  KCOLL_ASSIGN_OR_RETURN(
      double size, models::CollectiveBytes(collective, static_cast<int64_t>(bytes), 1, std::max(1, topology_.nranks)));
  KCOLL_ASSIGN_OR_RETURN(std::vector<models::Candidate> all, chooser_.Candidates(collective, size));
  std::vector<models::Candidate> out;
  for (const models::Candidate& c : all) {
    if (std::find(registered.begin(), registered.end(), c.algorithm) != registered.end()) out.push_back(c);
  }
  return out;
}

absl::StatusOr<std::optional<Algorithm>> AutoChoice::ChooseAmong(Collective collective, size_t bytes,
                                                                 const std::vector<Algorithm>& registered) const {
  KCOLL_ASSIGN_OR_RETURN(std::vector<models::Candidate> candidates, Candidates(collective, bytes, registered));
  if (candidates.empty()) return std::optional<Algorithm>();
  return std::optional<Algorithm>(models::BestCandidate(candidates).algorithm);
}

absl::StatusOr<Algorithm> AutoChoice::Choose(Collective collective, size_t bytes) const {
  KCOLL_ASSIGN_OR_RETURN(std::optional<Algorithm> chosen, ChooseAmong(collective, bytes, AlgorithmsFor(collective)));
  if (chosen.has_value()) return *chosen;
  return DefaultAlgorithm(collective, bytes, topology_);
}

}  // namespace kcoll
