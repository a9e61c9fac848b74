// Alpha-beta(-gamma) cost of every algorithm kcoll implements, for every collective it applies to.
//
// Notation: n ranks on Q nodes of P ranks (Topology; ranks are placed node-major), S the collective's size in
// nccl-tests' convention (bus_bandwidth.h: the whole buffer for reduce_scatter, all_gather, gather, scatter; one
// rank's whole send buffer for alltoall), a message of m bytes costs alpha + m * beta on its link class (intra- or
// inter-node, Profile), and reducing m received bytes costs gamma * m on the receiving rank.
//
// The algorithm is a sequence of rounds; in a round every participating rank sends at most one message per peer, all
// at once. A round takes as long as its slowest transfer (link_load.h gives the link model: full-duplex links, one
// link per ordered pair of ranks inside a node unless Topology::intra_links_per_rank says a rank's links are
// shared, the streams leaving or entering a node sharing its NICs). So a flat
// algorithm on several nodes is paced by its inter-node hops: every round of a flat ring costs
// max(alpha_intra + m beta_intra, alpha_inter + m beta_inter), i.e. the inter-node step whenever that link is the
// slower one. The costs count the exact number of rounds (ceil(log2 n), folds for non-powers of two, ...), including
// where textbook formulas drop them. A size-0 call costs nothing (kcoll returns at once); barrier ignores `bytes`.
//
// What each algorithm's rounds or pipeline are: its price in models/prices/<algorithm>.cc, which says how the
// schedule moves and reduces data and builds the model from it (PriceBuilder, price_builder.h). Which algorithm
// serves which collective with which price: base/algorithm_list.h.
//
// Pipelines (ring_pipelined rounds, double_binary_tree, tree's all_reduce, chain): with k = ceil(bytes / chunk_bytes)
// chunks, the last one of `last` bytes, the time is first(chunk) + (k-2) stage(chunk) + stage(last) for k >= 2 and
// first(bytes) for k = 1, where first(x) is the time for one chunk of x bytes to pass through every stage and stage(x)
// the slowest stage's time for it. That is the flow-shop bound of a pipeline of identical stages (exact when all stages
// take the same time, an upper bound otherwise). A stage that both moves and reduces takes the slower of the two when
// the profile's transfers_use_cores is false, else their sum (CPU ranks on shared memory). Because the chunk size is
// fixed, a larger size never costs less: each new chunk adds a stage's latency, so the time jumps up by about one alpha
// at every multiple of chunk_bytes.
#ifndef KCOLL_MODELS_COST_MODEL_H_
#define KCOLL_MODELS_COST_MODEL_H_

#include <cstdint>
#include <map>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/algorithm_list.h"
#include "base/names.h"
#include "models/link_load.h"
#include "models/machine.h"

namespace kcoll {
namespace models {

// Tuning of the pipelined algorithms. The implementation must use the same values for the model to predict it.
struct CostOptions {
  // ring_pipelined: the rings the communicator has (a call runs one per whole slice of n chunks, up to these, as
  // the library does). 0 means one per NIC of a node (Topology::nics_per_node).
  int channels = 0;
  // ring_pipelined, double_binary_tree, chain: the pipeline's chunk, in bytes.
  double chunk_bytes = 512 * 1024;  // the library's kDefaultChunkBytes (collectives/algorithms/engines/chunking.h)
};

// InvalidArgument naming the field: channels >= 0, chunk_bytes finite and >= 1.
absl::Status ValidateCostOptions(const CostOptions& options);

// Whether the model prices `algorithm` for `collective` (base/algorithm_list.h: a schedule row with a price). False
// for Algorithm::kAuto, which is a request for ChooseAlgorithm (algorithm_choice.h), not an algorithm, and for the
// algorithms left unpriced (direct).
bool Applies(Collective collective, Algorithm algorithm);

// The algorithms that apply to `collective`, in declaration order.
std::vector<Algorithm> ApplicableAlgorithms(Collective collective);

// The predicted time of one (collective, algorithm) pair on one machine, as a function of the size. Create does the
// size-independent work once (O(n log n) in the number of ranks); Seconds is then cheap.
class CostModel {
 public:
  // InvalidArgument for an invalid topology, profile or options, for Algorithm::kAuto, and when the algorithm does
  // not apply to the collective (the message lists the ones that do).
  static absl::StatusOr<CostModel> Create(Collective collective, Algorithm algorithm, const Topology& topology,
                                          const Profile& profile, const CostOptions& options = {});

  // Predicted seconds for a collective of `bytes` (nccl-tests' S). `bytes` must be finite and >= 0.
  double Seconds(double bytes) const;

  // Seconds() with `bytes` checked (InvalidArgument naming it).
  absl::StatusOr<double> PredictSeconds(double bytes) const;

  // The bytes all ranks send together in one call of `bytes` (nccl-tests' S), as the schedule this model prices
  // sends them: what the library's traffic counters add up to over the ranks (tests/model_parity_test.cc).
  double SentBytes(double bytes) const { return sent_per_byte_ * bytes + sent_fixed_bytes_; }

  // Of those, the bytes that go from one node to another, for the schedules priced round by round (each transfer
  // known); nullopt for the pipelined shapes, whose stages are priced as loads. On nodes emulated or real, what the
  // library's inter-node traffic counters add up to over the ranks.
  std::optional<double> InterNodeSentBytes(double bytes) const;

  // ring_pipelined: the channels a call of `bytes` runs, as the library chooses them (DefaultRingChannels in
  // collectives/algorithms/all_reduce/ring_pipelined.h): one per whole slice of n chunks, at least 1, at most the
  // channels of CostOptions (or of the NICs).
  int RingChannels(double bytes) const;

  Collective collective() const { return collective_; }
  Algorithm algorithm() const { return algorithm_; }
  const Topology& topology() const { return topology_; }

 private:
  // A group of `count` identical rounds whose transfers are fractions of S.
  struct Rounds {
    double count = 0;
    RoundLoad load;
  };
  enum class Shape { kRounds, kPipelinedRing, kChain, kPipelinedTrees };

  CostModel(Collective collective, Algorithm algorithm, const Topology& topology, const Profile& profile,
            const CostOptions& options)
      : collective_(collective), algorithm_(algorithm), topology_(topology), profile_(profile), options_(options) {}

  friend class PriceBuilder;

  // The shapes a price builds (PriceBuilder forwards to these).
  void AddRounds(double count, std::vector<Transfer> transfers, bool reduces);
  void AddRoundLoad(double count, const RoundLoad& load, double sent_fraction);
  void AddFixedRound(std::vector<Transfer> transfers);
  void BuildPipelinedRing(double reducing_rounds, double copying_rounds);
  void BuildChain(bool reduces);
  void BuildPipelinedTrees(const std::vector<std::vector<int64_t>>& trees);

  double Overlap(double move, double reduce) const;
  double RoundsSeconds(double bytes) const;
  double PipelinedRingSeconds(double bytes) const;
  RoundLoad RingStageLoad(int channels) const;
  double ChainSeconds(double bytes) const;
  double PipelinedTreesSeconds(double bytes) const;

  Collective collective_;
  Algorithm algorithm_;
  Topology topology_;
  Profile profile_;
  CostOptions options_;
  Shape shape_ = Shape::kRounds;

  std::vector<Rounds> rounds_;  // kRounds
  double slice_bytes_ = 0;      // kRounds in slices (hierarchical, bidirectional_ring): bytes per slice, 0: unsliced
  size_t cold_rounds_ = 0;      // kRounds in slices: the first rounds_ entries that read each slice from memory

  // Pipelined shapes: the load of one stage when every active link carries one chunk (kPipelinedRing: of one
  // channel's ring).
  RoundLoad stage_load_;
  double reducing_rounds_ = 0;         // kPipelinedRing
  double copying_rounds_ = 0;          // kPipelinedRing
  int channels_ = 1;                   // kPipelinedRing: the most channels a call runs
  std::vector<RoundLoad> ring_loads_;  // kPipelinedRing: the stage when c channels run, at index c - 1
  bool reduces_ = false;               // kChain
  double intra_hops_ = 0;              // kChain
  double inter_hops_ = 0;              // kChain
  double max_children_ = 0;            // kPipelinedTrees: most chunks a rank reduces per stage
  // kPipelinedTrees: a leaf-to-root path: its hops per link class and the chunks reduced along it (the children of
  // every rank it passes).
  struct TreePath {
    double intra_hops = 0;
    double inter_hops = 0;
    double reduced_chunks = 0;
    bool operator<(const TreePath& o) const {
      return std::tie(intra_hops, inter_hops, reduced_chunks) < std::tie(o.intra_hops, o.inter_hops, o.reduced_chunks);
    }
    bool operator==(const TreePath& o) const { return !(*this < o) && !(o < *this); }
  };
  std::vector<TreePath> paths_;  // kPipelinedTrees: the paths no other path beats in every respect
  // kPipelinedTrees: what a rank does in a full stage (chunks received per link class, chunks reduced), each
  // distinct combination with the number of ranks that have it.
  struct RankStage {
    double intra_chunks = 0;
    double inter_chunks = 0;
    double reduced_chunks = 0;
    bool operator<(const RankStage& o) const {
      return std::tie(intra_chunks, inter_chunks, reduced_chunks) <
             std::tie(o.intra_chunks, o.inter_chunks, o.reduced_chunks);
    }
  };
  std::map<RankStage, int64_t> rank_stages_;
  double tree_share_ = 1;  // kPipelinedTrees: the part of S each tree carries
  // kPipelinedTrees: the streams the trees' first chunks put through the busiest node's NIC at once (every tree's
  // first chunk moves at the same time; a tree crosses a node's link once per chunk).
  int64_t first_inter_streams_ = 1;
  double sent_per_byte_ = 0;     // bytes sent by all ranks together per byte of S
  double sent_fixed_bytes_ = 0;  // bytes sent by all ranks together whatever S is (AddFixedRound's headers)
  // The same for the bytes that cross nodes, while every round's transfers are known (AddRounds, AddFixedRound).
  double inter_sent_per_byte_ = 0;
  double inter_sent_fixed_bytes_ = 0;
  bool inter_sent_known_ = true;
};

// CostModel::Create(...) then PredictSeconds(bytes).
absl::StatusOr<double> PredictSeconds(Collective collective, Algorithm algorithm, double bytes,
                                      const Topology& topology, const Profile& profile,
                                      const CostOptions& options = {});

}  // namespace models
}  // namespace kcoll

#endif  // KCOLL_MODELS_COST_MODEL_H_
