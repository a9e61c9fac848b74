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
// Step schedules (p' = largest power of two <= n, r = n - p', L = ceil(log2 n)):
//
// ring (all_reduce, reduce_scatter, all_gather): rank i sends to i+1 mod n. ReduceScatter: n-1 rounds of S/n,
//   each reducing what arrives; AllGather: n-1 rounds of S/n; AllReduce: the two in sequence.
// ring_pipelined (same collectives): `channels` rings run at once, each on S/channels; every ring round of
//   m = S/(n channels) bytes per channel is cut into chunks of chunk_bytes (the last one partial) so that receiving
//   chunk j+1 overlaps reducing chunk j. A round is a small pipeline (see "Pipelines" below) whose stages are moving
//   one chunk of every channel and, in reducing rounds, reducing them. Rounds do not overlap each other. The
//   channels share the intra-node links of the ring and spread their inter-node hops over the node's NICs, so
//   channels pay off across nodes with several NICs, and chunks pay off when gamma > 0 (each extra chunk costs a
//   latency). With one channel and m <= chunk_bytes it is exactly `ring`. Working set (measured curves): the
//   AllReduce runs in slices of n chunks per channel, so its AllGather rounds forward blocks reduced moments before
//   and are priced with the slice as working set; its ReduceScatter rounds, which read the buffer from memory, and
//   the other collectives are priced with the whole buffer.
// bidirectional_ring (same collectives): two rings at once, clockwise and counter-clockwise, each on S/2: the
//   ring's number of rounds with messages of S/(2n) on each direction. Each rank sends on two links at once; the
//   links are full duplex with a separate link per direction and neighbour, so inside a node both halves run at full
//   speed (for n == 2 both rings use the same two links and share them; with intra_links_per_rank = 1 the two sends
//   share the rank's one link and the algorithm gains nothing over ring), while across nodes the two streams
//   leaving each node share its NICs. Each rank reduces both halves it receives (S/n per round). The AllReduce
//   runs each direction in slices of n chunks (2n chunk_bytes in all per slice), priced slice by slice as
//   hierarchical's below: the ReduceScatter rounds with the whole buffer as working set, the AllGather rounds with
//   the slice.
// tree (binomial tree rooted at rank 0, trees.h): reduce = L rounds of S toward the root, each reducing;
//   broadcast = L rounds of S away from it; all_reduce = the pipelined reduce + broadcast of double_binary_tree on
//   the one binomial tree carrying all of S (the root reduces ceil(log2 n) chunks per stage); gather / scatter =
//   L rounds where a rank forwards the blocks of its whole subtree (min(2^i, n - 2^i) S/n in round i at the root);
//   barrier = the reduce and broadcast rounds with empty messages.
// double_binary_tree (all_reduce): two complementary binary trees (trees.h) each carry S/2, reduced toward the root
//   and broadcast back. Each half is cut into chunks of chunk_bytes that stream through its tree, a chunk's
//   reduction and broadcast pipelined (a chunk goes down as soon as the root has it). Both trees run at once and
//   their traffic adds up on shared links. Pipeline stage: a chunk up and another down every edge. Through NICs or
//   copy engines, the slower of the busiest intra-node link and the busiest node's NICs, overlapped with the busiest
//   rank's reduction of its children's chunks. With transfers_use_cores each rank copies every chunk it receives, of
//   both link classes, in turn, then reduces; the ranks' loads differ, and the stage is the busiest rank's work times
//   the profile's rank_core_share (its rate alone on a core, when the profile was measured with ranks sharing
//   cores) or the mean rank's work (all the ranks' work over the cores), whichever is longer. First
//   chunk: up to the root and back down the slowest leaf-to-root path, each hop charged its link class's time for
//   the chunk alone (the pipeline behind it is still empty), plus the reduction of every child's chunk at each rank
//   it passes on the way up.
// halving_doubling (all_reduce; Rabenseifner): fold-in when r > 0: ranks 2i (i < r) send all S to 2i+1, which
//   reduces; the p' remaining ranks then run log2 p' halving rounds exchanging S/2, S/4, ..., S/p' with partners
//   at distance 1, 2, ..., p'/2 (reducing), then log2 p' doubling rounds exchanging S/p', ..., S/2 at distances
//   p'/2, ..., 1; fold-out: the full result (S) goes back to each rank 2i. reduce_scatter: fold-in, then log2 p'
//   halving rounds with partners at distance p'/2, ..., 1 (so each rank ends with its own blocks; a rank that
//   stands in for a folded pair carries two blocks, so a round moves the exact sum of the blocks it hands over),
//   then fold-out of the folded rank's own block (S/n).
// recursive_doubling: all_reduce: fold-in, log2 p' rounds exchanging the full S (reducing) at distances 1, 2, ...,
//   fold-out. all_gather: fold-in of the folded ranks' blocks (S/n), log2 p' rounds at distances 1, 2, ... where a
//   rank sends all the blocks it holds, fold-out of the other (n-1)/n of S. barrier: dissemination, L rounds of
//   empty messages from i to i + 2^k mod n (no folds needed).
// hierarchical (all_reduce): intra-node ring ReduceScatter over the P ranks of each node (P-1 rounds of S/P), then
//   P inter-node ring AllReduces at once, one per local rank over the Q ranks holding the same shard (2(Q-1) rounds
//   of S/(PQ); these P streams share each node's NICs), then intra-node ring AllGather (P-1 rounds of S/P).
// hierarchical_ring_tree (all_reduce): as hierarchical, with the inter-node phase a binomial-tree AllReduce over the
//   Q nodes on S/P (ceil(log2 Q) reducing rounds of S/P toward node 0, then as many broadcast rounds).
//   Both run the buffer in slices of P chunks (P * chunk_bytes), each slice through the three phases before the
//   next: the phases' rounds are priced per slice, the first phase with the whole buffer as working set (it reads
//   the slice from memory) and the others with the slice (still in cache).
// chain (broadcast, reduce): ranks form the chain 0 - 1 - ... - n-1 with the root at 0; S is cut into chunks of
//   chunk_bytes (the last one partial) that stream along it (toward the root for reduce, reducing at each hop).
// pairwise: alltoall: n-1 rounds; in round k rank i sends its block for i+k (S/n) to it and receives from i-k.
//   sendrecv: one round, rank i sends S to i+1 mod n.
// linear (broadcast, reduce, gather, scatter, barrier): the root (rank 0) talks to every other rank in turn, one
//   message per round: S for broadcast and reduce (reducing), S/n for gather and scatter, empty messages for barrier
//   (n-1 to the root, then n-1 releases).
//
// Pipelines (ring_pipelined rounds, double_binary_tree, chain): with k = ceil(bytes / chunk_bytes) chunks, the last
// one of `last` bytes, the time is first(chunk) + (k-2) stage(chunk) + stage(last) for k >= 2 and first(bytes) for
// k = 1, where first(x) is the time for one chunk of x bytes to pass through every stage and stage(x) the slowest
// stage's time for it. That is the flow-shop bound of a pipeline of identical stages (exact when all stages take
// the same time, an upper bound otherwise). A stage that both moves and reduces takes the slower of the two when the
// profile's transfers_use_cores is false, else their sum (CPU ranks on shared memory). Because the chunk size is fixed,
// a larger size never costs less: each new chunk adds a stage's latency, so the time jumps up by about one alpha at
// every multiple of chunk_bytes.
#ifndef KCOLL_MODELS_COST_MODEL_H_
#define KCOLL_MODELS_COST_MODEL_H_

#include <cstdint>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
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
  double chunk_bytes = 512 * 1024;  // the library's kDefaultChunkBytes (collectives/algorithms/chunking.h)
};

// InvalidArgument naming the field: channels >= 0, chunk_bytes finite and >= 1.
absl::Status ValidateCostOptions(const CostOptions& options);

// Whether `algorithm` implements `collective` (table in the comment above). False for Algorithm::kAuto, which is a
// request for ChooseAlgorithm (algorithm_choice.h), not an algorithm.
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
  double SentBytes(double bytes) const { return sent_per_byte_ * bytes; }

  // ring_pipelined: the channels a call of `bytes` runs, as the library chooses them (DefaultRingChannels in
  // collectives/algorithms/ring_pipelined.h): one per whole slice of n chunks, at least 1, at most the channels of
  // CostOptions (or of the NICs).
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

  void Build();
  void AddRounds(double count, std::vector<Transfer> transfers, bool reduces);
  void AddRing(double amount, double reducing_rounds, double copying_rounds);
  void AddBinomialReduce(bool reduces, bool blocks, double amount);
  void AddBinomialBroadcast(bool blocks, double amount);
  void AddLinear(bool to_root, double amount, bool reduces);
  void AddHalvingDoublingAllReduce(bool halving);
  void AddHalvingReduceScatter();
  void AddDoublingAllGather();
  void AddHierarchical(bool inter_tree);
  void AddPairwise();
  void AddDissemination();
  void BuildPipelinedRing(double reducing_rounds, double copying_rounds);
  void BuildChain(bool reduces);
  void BuildDoubleBinaryTree();
  void BuildBidirectionalRing(double reducing_rounds, double copying_rounds);
  void BuildBinomialTree();
  void BuildLinear();
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
  double tree_share_ = 1;     // kPipelinedTrees: the part of S each tree carries
  double sent_per_byte_ = 0;  // bytes sent by all ranks together per byte of S
};

// CostModel::Create(...) then PredictSeconds(bytes).
absl::StatusOr<double> PredictSeconds(Collective collective, Algorithm algorithm, double bytes,
                                      const Topology& topology, const Profile& profile,
                                      const CostOptions& options = {});

}  // namespace models
}  // namespace kcoll

#endif  // KCOLL_MODELS_COST_MODEL_H_
