#include "choice/auto_choice.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/algorithm_list.h"
#include "base/env.h"
#include "base/status_macros.h"
#include "choice/default_algorithm.h"
#include "choice/shipped_profiles.h"
#include "models/bandwidth/bus_bandwidth.h"
#include "models/profile_json.h"

namespace kcoll {
namespace {

absl::StatusOr<models::Profile> LoadNamed(const std::string& setting, const std::string& path) {
  absl::StatusOr<models::Profile> profile = models::LoadProfile(path);
  if (!profile.ok()) {
    // LoadProfile's messages name the path ("profile path '...' cannot be read", "<path>: profile field ...").
    return absl::InvalidArgumentError(absl::StrCat(setting, ": ", profile.status().message()));
  }
  return profile;
}

}  // namespace

namespace {

// The profile `auto` prices with when no shipped profile can be read: round numbers for one shared-memory node
// (0.2 us and 10 GB/s a message, reductions at 25 GB/s), not a measurement of any machine.
models::Profile GenericProfile() {
  models::Profile generic;
  generic.intra = {0.2e-6, 1.0 / 10e9};
  generic.inter = generic.intra;
  generic.gamma_s_per_byte = 1.0 / 25e9;
  generic.description = "kcoll generic profile (no shipped profile found)";
  return generic;
}

// The shipped profile of `transport` (shipped_profiles.h), or the generic one with the reason in `source`.
// `shm`: the profile of kcoll's shared-memory channels, else MPI's.
ProfileChoice LoadShipped(bool shm) {
  ProfileChoice choice;
  absl::StatusOr<std::string> path = FindShippedProfile(shm ? kShippedShmProfile : kShippedMpiProfile);
  absl::StatusOr<models::Profile> profile = path.ok() ? models::LoadProfile(*path) : path.status();
  if (!profile.ok()) {
    choice.profile = GenericProfile();
    choice.source = absl::StrCat("generic (", profile.status().message(),
                                 "; set KCOLL_PROFILE to a profile or KCOLL_PROFILE_DIR to models/profiles)");
    return choice;
  }
  choice.profile = *std::move(profile);
  choice.source = shm ? "built-in (shm)" : "built-in";
  return choice;
}

}  // namespace

ProfileChoice BuiltInProfileChoice(TransportKind transport) {
  ProfileChoice mpi = LoadShipped(false);
  if (!SharesNodeMemory(transport)) return mpi;
  // Intra-node links are the shared-memory channels'; inter-node ones go over MPI.
  ProfileChoice shm = LoadShipped(true);
  shm.profile.inter = mpi.profile.inter;
  return shm;
}

models::Profile BuiltInProfile(TransportKind transport) { return BuiltInProfileChoice(transport).profile; }

absl::StatusOr<ProfileChoice> ChooseProfile(const std::string& profile_path, TransportKind transport) {
  ProfileChoice choice;
  if (!profile_path.empty()) {
    KCOLL_ASSIGN_OR_RETURN(choice.profile, LoadNamed("profile_path", profile_path));
    choice.source = absl::StrCat("profile_path=", profile_path);
    return choice;
  }
  if (const char* env = GetEnv("KCOLL_PROFILE")) {
    KCOLL_ASSIGN_OR_RETURN(choice.profile, LoadNamed("KCOLL_PROFILE", env));
    choice.source = absl::StrCat("KCOLL_PROFILE=", env);
    return choice;
  }
  return BuiltInProfileChoice(transport);
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
  // Emulated nodes share one machine's memory: each rank's "inter-node" messages are its own shared-memory copies,
  // so the streams of a node do not queue for one NIC.
  t.nics_per_node = topology.emulated && per_node > 0 ? per_node : 1;
  t.intra_links_per_rank = 1;
  return t;
}

models::CostOptions ModelCostOptions(const Topology& topology) {
  models::CostOptions options;
  // The communicator's channels (1 on MPI, 2 on NCCL: topology/discover.h); a call of ring_pipelined runs one per
  // whole slice of n chunks, up to these, in the library and in the model alike.
  options.channels = std::max(1, topology.nchannels());
  options.chunk_bytes = static_cast<double>(kDefaultChunkBytes);  // the pipelined algorithms' default
  return options;
}

absl::StatusOr<AutoChoice> AutoChoice::Create(const Topology& topology, ProfileChoice profile, bool host_ranks) {
  absl::StatusOr<models::AlgorithmChooser> chooser =
      models::AlgorithmChooser::Create(ModelTopology(topology), profile.profile, ModelCostOptions(topology));
  if (!chooser.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("profile (", profile.source, "): ", chooser.status().message()));
  }
  return AutoChoice(topology, *std::move(chooser), std::move(profile), host_ranks);
}

absl::StatusOr<std::vector<models::Candidate>> AutoChoice::Candidates(Collective collective, size_t bytes,
                                                                      const std::vector<Algorithm>& registered) const {
  KCOLL_ASSIGN_OR_RETURN(
      double size, models::CollectiveBytes(collective, static_cast<int64_t>(bytes), 1, std::max(1, topology_.nranks)));
  KCOLL_ASSIGN_OR_RETURN(std::vector<models::Candidate> all, chooser_.Candidates(collective, size));
  std::vector<models::Candidate> out;
  for (const models::Candidate& c : all) {
    if (std::find(registered.begin(), registered.end(), c.algorithm) != registered.end() &&
        NeedsMet(collective, c.algorithm)) {
      out.push_back(c);
    }
  }
  return out;
}

bool AutoChoice::NeedsMet(Collective collective, Algorithm algorithm) const {
  if (!host_ranks_ && NeedsHostRanks(collective, algorithm)) return false;
  switch (FactsOf(algorithm).needs) {
    case AlgorithmNeeds::kNothing:
      return true;
    case AlgorithmNeeds::kEqualNodes:
      return topology_.uniform_ranks_per_node() > 0;
    case AlgorithmNeeds::kRegisteredBuffers:
      return false;  // taken by the communicator's own rule on registered buffers, never by price
    case AlgorithmNeeds::kOneNodeShm:
      return false;  // taken by the communicator's own rule on small buffers, never by price
    case AlgorithmNeeds::kVendorMpi:
      return false;  // MPI's own collective: the communicator's rule on the profile's measured sizes, never by price
  }
  return false;
}

absl::StatusOr<std::optional<Algorithm>> AutoChoice::ChooseAmong(Collective collective, size_t bytes,
                                                                 const std::vector<Algorithm>& registered) const {
  KCOLL_ASSIGN_OR_RETURN(std::vector<models::Candidate> candidates, Candidates(collective, bytes, registered));
  if (candidates.empty()) return std::optional<Algorithm>();
  return std::optional<Algorithm>(models::BestCandidate(candidates).algorithm);
}

absl::StatusOr<Algorithm> AutoChoice::Choose(Collective collective, size_t bytes) const {
  const std::pair<int, size_t> key(static_cast<int>(collective), bytes);
  {
    absl::MutexLock lock(&cache_->mutex);
    if (auto it = cache_->chosen.find(key); it != cache_->chosen.end()) return it->second;
  }
  KCOLL_ASSIGN_OR_RETURN(std::optional<Algorithm> chosen, ChooseAmong(collective, bytes, AlgorithmsFor(collective)));
  Algorithm algorithm;
  if (chosen.has_value()) {
    algorithm = *chosen;
  } else {
    KCOLL_ASSIGN_OR_RETURN(algorithm, DefaultAlgorithm(collective, bytes, topology_));
  }
  absl::MutexLock lock(&cache_->mutex);
  cache_->chosen.emplace(key, algorithm);
  return algorithm;
}

}  // namespace kcoll
