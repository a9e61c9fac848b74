// What `auto` runs: among the algorithms registered for a collective (algorithms/registry.h), the one the
// alpha-beta cost model (models/algorithm_choice.h) predicts fastest for the call's size on the communicator's
// machine. Built once per communicator (the models' set-up is O(n log n) in the ranks); each call is then a few
// arithmetic operations per registered algorithm.
//
// The machine the models see (ModelTopology): the communicator's nodes and ranks per node, one NIC per node and,
// inside a node, one link per rank (Topology::intra_links_per_rank = 1: ranks talk through shared memory, so what a
// rank sends to several peers at once shares its memory bandwidth). Nodes of different sizes cannot be described
// by the models' uniform topology; they are priced as one rank per node (every link inter-node), which keeps the
// slow links in every algorithm's cost. The pipelined algorithms are priced with the implementation's default
// chunk (512 KiB) and the communicator's channels (ModelCostOptions).
//
// The costs (ChooseProfile): CommunicatorOptions::profile_path, else $KCOLL_PROFILE, else the shipped profile
// (BuiltInProfile); a communicator also looks for the profile saved for this machine before the shipped one
// (collectives/profile_choice.h, machine_profiles.h). Communicator::SetProfile replaces them later.
//
// A registered algorithm the models cannot price (models::Applies is false), or whose needs the communicator does not
// meet (base/algorithm_list.h), is left out of the comparison: with no cost to compare, choosing it would be a guess.
// It still runs when asked for by name (the call's option or $KCOLL_ALGO). When no registered algorithm of a collective
// has a model, `auto` falls back to DefaultAlgorithm (choice/default_algorithm.h).
#ifndef KCOLL_CHOICE_AUTO_CHOICE_H_
#define KCOLL_CHOICE_AUTO_CHOICE_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "base/names.h"
#include "base/topology.h"
#include "base/transport_kind.h"
#include "models/algorithm_choice.h"
#include "models/cost_model.h"
#include "models/machine.h"

namespace kcoll {

// The profile used when none is given, per transport, shipped beside the library as data (shipped_profiles.h says
// where it is found): one shared-memory CPU node measured by //bench:calibrate with 2 ranks (the machine is named in
// the profile's own fields), through MPI point-to-point (models/profiles/this_machine_2ranks.json: Open MPI 4.1's
// shared memory) or through kcoll's shared-memory channels (this_machine_2ranks_shm.json, for a transport that
// shares node memory, base/transport_kind.h; its inter-node link is the MPI profile's, as a shm communicator's
// inter-node transfers go over MPI). Each has the
// exchange curve of the link and the reduction curve from 8 B (4 KiB) to 64 MiB, so small-message steps and the fall
// of the bandwidth once buffers leave the caches are priced (models/measured_curve.h). The MPI profile's inter-node
// link is its intra-node one: a machine without a profile is taken for one node (or emulated nodes on one machine).
// Calibrate other machines and pass their profile, or replace these files. When no file can be read, a generic
// profile of round numbers stands in, and the choice's source says why.
inline constexpr char kShippedMpiProfile[] = "this_machine_2ranks.json";
inline constexpr char kShippedShmProfile[] = "this_machine_2ranks_shm.json";
struct ProfileChoice {
  models::Profile profile;
  // "profile_path=<path>", "KCOLL_PROFILE=<path>", "built-in", "built-in (shm)", or "generic (<why>)"
  std::string source;
};
ProfileChoice BuiltInProfileChoice(TransportKind transport = TransportKind::kMpi);
models::Profile BuiltInProfile(TransportKind transport = TransportKind::kMpi);

// `profile_path` if not empty, else $KCOLL_PROFILE if set and not empty, else BuiltInProfile(transport). A file that
// cannot be read or is not a valid profile gives InvalidArgument naming the setting, the path and the field.
absl::StatusOr<ProfileChoice> ChooseProfile(const std::string& profile_path,
                                            TransportKind transport = TransportKind::kMpi);

// The machine and tuning the models see for `topology` (see the top of this file).
models::Topology ModelTopology(const Topology& topology);
models::CostOptions ModelCostOptions(const Topology& topology);

class AutoChoice {
 public:
  // InvalidArgument when the profile is invalid. `host_ranks`: the ranks compute on the host (not GPU ranks), so the
  // schedules that only host ranks run (NeedsHostRanks in base/names.h) are candidates.
  static absl::StatusOr<AutoChoice> Create(const Topology& topology, ProfileChoice profile, bool host_ranks = true);

  // The registered algorithm (AlgorithmsFor) with the least predicted time; DefaultAlgorithm when none has a model.
  // `bytes` is count * element size, with count as CollectiveArgs defines it (per rank for reduce_scatter and
  // all_gather, per peer for alltoall, gather and scatter); it is converted to nccl-tests' size for the models.
  // Choices are remembered per (collective, bytes): pricing every algorithm takes microseconds, as long as a small
  // call, and a training loop repeats the same sizes.
  absl::StatusOr<Algorithm> Choose(Collective collective, size_t bytes) const;

  // The same among `registered` only (in any order); nullopt when none of them has a model.
  absl::StatusOr<std::optional<Algorithm>> ChooseAmong(Collective collective, size_t bytes,
                                                       const std::vector<Algorithm>& registered) const;

  // Each algorithm of `registered` that has a model and whose needs (base/algorithm_list.h) this communicator meets,
  // with its predicted seconds for the call, in simplicity order.
  absl::StatusOr<std::vector<models::Candidate>> Candidates(Collective collective, size_t bytes,
                                                            const std::vector<Algorithm>& registered) const;

  const models::AlgorithmChooser& chooser() const { return chooser_; }
  const models::Profile& profile() const { return profile_.profile; }
  const std::string& profile_source() const { return profile_.source; }

 private:
  AutoChoice(const Topology& topology, models::AlgorithmChooser chooser, ProfileChoice profile, bool host_ranks)
      : topology_(topology), chooser_(std::move(chooser)), profile_(std::move(profile)), host_ranks_(host_ranks) {}

  // Whether the communicator can run `algorithm` for `collective` whatever the call's buffers: the same number of
  // ranks on every node for the hierarchical algorithms, host ranks for those that read received sizes on the host;
  // never for those that need registered buffers (they are not priced).
  bool NeedsMet(Collective collective, Algorithm algorithm) const;

  struct Cache {
    absl::Mutex mutex;
    absl::flat_hash_map<std::pair<int, size_t>, Algorithm> chosen ABSL_GUARDED_BY(mutex);
  };

  Topology topology_;
  models::AlgorithmChooser chooser_;
  ProfileChoice profile_;
  bool host_ranks_ = true;
  std::shared_ptr<Cache> cache_ = std::make_shared<Cache>();
};

}  // namespace kcoll

#endif  // KCOLL_CHOICE_AUTO_CHOICE_H_
