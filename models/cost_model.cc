#include "models/cost_model.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "models/trees.h"

namespace kcoll {
namespace models {

namespace {

// Most channels ring_pipelined accepts.
constexpr int kMaxChannels = 1024;

double ChunkCount(double bytes, double chunk_bytes) { return std::max(1.0, std::ceil(bytes / chunk_bytes)); }

}  // namespace

absl::Status ValidateCostOptions(const CostOptions& options) {
  if (options.channels < 0 || options.channels > kMaxChannels) {
    return absl::InvalidArgumentError(
        absl::StrCat("options channels=", options.channels, " must be in [0, ", kMaxChannels, "]"));
  }
  if (!std::isfinite(options.chunk_bytes) || options.chunk_bytes < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("options chunk_bytes=", options.chunk_bytes, " must be finite and >= 1"));
  }
  return absl::OkStatus();
}

bool Applies(Collective collective, Algorithm algorithm) {
  switch (collective) {
    case Collective::kAllReduce:
      switch (algorithm) {
        case Algorithm::kRing:
        case Algorithm::kRingPipelined:
        case Algorithm::kBidirectionalRing:
        case Algorithm::kTree:
        case Algorithm::kDoubleBinaryTree:
        case Algorithm::kHalvingDoubling:
        case Algorithm::kRecursiveDoubling:
        case Algorithm::kHierarchical:
        case Algorithm::kHierarchicalRingTree:
          return true;
        default:
          return false;
      }
    case Collective::kReduceScatter:
      return algorithm == Algorithm::kRing || algorithm == Algorithm::kHalvingDoubling;
    case Collective::kAllGather:
      return algorithm == Algorithm::kRing || algorithm == Algorithm::kRecursiveDoubling;
    case Collective::kBroadcast:
    case Collective::kReduce:
      return algorithm == Algorithm::kTree || algorithm == Algorithm::kChain || algorithm == Algorithm::kLinear;
    case Collective::kGather:
    case Collective::kScatter:
      return algorithm == Algorithm::kTree || algorithm == Algorithm::kLinear;
    case Collective::kAllToAll:
    case Collective::kSendRecv:
      return algorithm == Algorithm::kPairwise;
    case Collective::kBarrier:
      return algorithm == Algorithm::kTree || algorithm == Algorithm::kRecursiveDoubling ||
             algorithm == Algorithm::kLinear;
  }
  return false;
}

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
  model.Build();
  return model;
}

void CostModel::Build() {
  const int64_t n = topology_.ranks();
  const double steps = static_cast<double>(n - 1);
  const double reducing = collective_ == Collective::kAllGather ? 0 : steps;
  const double copying = collective_ == Collective::kReduceScatter ? 0 : steps;
  switch (algorithm_) {
    case Algorithm::kRing:
      AddRing(1.0 / n, reducing, copying);
      break;
    case Algorithm::kRingPipelined:
      BuildPipelinedRing(reducing, copying);
      break;
    case Algorithm::kBidirectionalRing: {
      std::vector<Transfer> transfers;
      for (int64_t i = 0; i < n; ++i) {
        transfers.push_back({i, (i + 1) % n, 0.5 / n});
        transfers.push_back({i, (i + n - 1) % n, 0.5 / n});
      }
      AddRounds(reducing, transfers, true);
      AddRounds(copying, transfers, false);
      // Each direction runs the sliced ring schedule (ring_pipeline.cc): slices of n chunks, each through the
      // ReduceScatter rounds, which read it from memory, then the AllGather rounds, which find it in cache.
      slice_bytes_ = 2.0 * static_cast<double>(n) * options_.chunk_bytes;
      cold_rounds_ = 1;
      break;
    }
    case Algorithm::kTree:
      switch (collective_) {
        case Collective::kAllReduce:
          BuildPipelinedTrees({BinomialTreeParents(n)});
          break;
        case Collective::kReduce:
          AddBinomialReduce(true, false, 1);
          break;
        case Collective::kBroadcast:
          AddBinomialBroadcast(false, 1);
          break;
        case Collective::kGather:
          AddBinomialReduce(false, true, 1.0 / n);
          break;
        case Collective::kScatter:
          AddBinomialBroadcast(true, 1.0 / n);
          break;
        default:  // kBarrier
          AddBinomialReduce(false, false, 0);
          AddBinomialBroadcast(false, 0);
          break;
      }
      break;
    case Algorithm::kDoubleBinaryTree:
      BuildDoubleBinaryTree();
      break;
    case Algorithm::kHalvingDoubling:
      if (collective_ == Collective::kAllReduce) {
        AddHalvingDoublingAllReduce(true);
      } else {
        AddHalvingReduceScatter();
      }
      break;
    case Algorithm::kRecursiveDoubling:
      if (collective_ == Collective::kAllReduce) {
        AddHalvingDoublingAllReduce(false);
      } else if (collective_ == Collective::kAllGather) {
        AddDoublingAllGather();
      } else {
        AddDissemination();
      }
      break;
    case Algorithm::kHierarchical:
      AddHierarchical(false);
      break;
    case Algorithm::kHierarchicalRingTree:
      AddHierarchical(true);
      break;
    case Algorithm::kChain:
      BuildChain(collective_ == Collective::kReduce);
      break;
    case Algorithm::kPairwise:
      if (collective_ == Collective::kAllToAll) {
        AddPairwise();
      } else {
        AddRing(1.0, 0, 1);  // sendrecv: one round, i -> i+1, all of S
      }
      break;
    case Algorithm::kLinear:
      switch (collective_) {
        case Collective::kBroadcast:
          AddLinear(false, 1, false);
          break;
        case Collective::kReduce:
          AddLinear(true, 1, true);
          break;
        case Collective::kGather:
          AddLinear(true, 1.0 / n, false);
          break;
        case Collective::kScatter:
          AddLinear(false, 1.0 / n, false);
          break;
        default:  // kBarrier
          AddLinear(true, 0, false);
          AddLinear(false, 0, false);
          break;
      }
      break;
    case Algorithm::kAuto:
    case Algorithm::kDirect:  // zero-copy on registered buffers: not priced, taken whenever they are registered
      break;                  // refused by Create
  }
}

void CostModel::AddRounds(double count, std::vector<Transfer> transfers, bool reduces) {
  if (count <= 0 || transfers.empty()) return;
  RoundLoad load = SummarizeRound(topology_, std::move(transfers), reduces);
  if (!load.has_intra && !load.has_inter) return;
  rounds_.push_back({count, load});
}

void CostModel::AddRing(double amount, double reducing_rounds, double copying_rounds) {
  const int64_t n = topology_.ranks();
  std::vector<Transfer> transfers;
  transfers.reserve(n);
  for (int64_t i = 0; i < n; ++i) transfers.push_back({i, (i + 1) % n, amount});
  AddRounds(reducing_rounds, transfers, true);
  AddRounds(copying_rounds, transfers, false);
}

// Round i (distance d = 2^i) sends from r + d to r for every multiple r of 2d. With `blocks`, the sender forwards
// its whole subtree: min(d, n - r - d) blocks of `amount` each.
void CostModel::AddBinomialReduce(bool reduces, bool blocks, double amount) {
  const int64_t n = topology_.ranks();
  const int levels = CeilLog2(n);
  for (int i = 0; i < levels; ++i) {
    const int64_t d = int64_t{1} << i;
    std::vector<Transfer> transfers;
    for (int64_t r = 0; r + d < n; r += 2 * d) {
      transfers.push_back({r + d, r, blocks ? amount * static_cast<double>(std::min(d, n - r - d)) : amount});
    }
    AddRounds(1, transfers, reduces);
  }
}

void CostModel::AddBinomialBroadcast(bool blocks, double amount) {
  const int64_t n = topology_.ranks();
  const int levels = CeilLog2(n);
  for (int i = levels - 1; i >= 0; --i) {
    const int64_t d = int64_t{1} << i;
    std::vector<Transfer> transfers;
    for (int64_t r = 0; r + d < n; r += 2 * d) {
      transfers.push_back({r, r + d, blocks ? amount * static_cast<double>(std::min(d, n - r - d)) : amount});
    }
    AddRounds(1, transfers, false);
  }
}

// One message per round between the root and rank j: the rounds with j on the root's node are all alike, and so are
// the others.
void CostModel::AddLinear(bool to_root, double amount, bool reduces) {
  const int64_t p = topology_.ranks_per_node;
  const int64_t n = topology_.ranks();
  auto add = [&](int64_t j, double count) {
    AddRounds(count, {to_root ? Transfer{j, 0, amount} : Transfer{0, j, amount}}, reduces);
  };
  if (p > 1) add(1, static_cast<double>(p - 1));
  if (n > p) add(p, static_cast<double>(n - p));
}

// Folds for n = p' + r: ranks 2i and 2i+1 (i < r) pair up; 2i+1 stands in for both. Survivor j is rank 2j+1 for
// j < r and rank j + r otherwise.
namespace {

struct Folding {
  explicit Folding(int64_t n) : pow2(FloorPowerOfTwo(n)), extra(n - pow2) {}
  int64_t Rank(int64_t survivor) const { return survivor < extra ? 2 * survivor + 1 : survivor + extra; }
  std::vector<Transfer> FoldIn(double amount) const {
    std::vector<Transfer> t;
    for (int64_t i = 0; i < extra; ++i) t.push_back({2 * i, 2 * i + 1, amount});
    return t;
  }
  std::vector<Transfer> FoldOut(double amount) const {
    std::vector<Transfer> t;
    for (int64_t i = 0; i < extra; ++i) t.push_back({2 * i + 1, 2 * i, amount});
    return t;
  }
  // Survivor j's share of S when every rank has a block of 1/n: folded survivors carry two blocks.
  std::vector<double> BlockPrefix(int64_t n) const {
    std::vector<double> prefix(pow2 + 1, 0);
    for (int64_t j = 0; j < pow2; ++j) prefix[j + 1] = prefix[j] + (j < extra ? 2.0 : 1.0) / n;
    return prefix;
  }
  int64_t pow2;
  int64_t extra;
};

}  // namespace

void CostModel::AddHalvingDoublingAllReduce(bool halving) {
  const Folding fold(topology_.ranks());
  AddRounds(1, fold.FoldIn(1), true);
  auto exchange = [&](int64_t mask, double amount, bool reduces) {
    std::vector<Transfer> transfers;
    for (int64_t j = 0; j < fold.pow2; ++j) transfers.push_back({fold.Rank(j), fold.Rank(j ^ mask), amount});
    AddRounds(1, transfers, reduces);
  };
  for (int64_t mask = 1; mask < fold.pow2; mask <<= 1) exchange(mask, halving ? 0.5 / mask : 1.0, true);
  if (halving) {
    for (int64_t mask = fold.pow2 / 2; mask >= 1; mask >>= 1) exchange(mask, 0.5 / mask, false);
  }
  AddRounds(1, fold.FoldOut(1), false);
}

void CostModel::AddHalvingReduceScatter() {
  const int64_t n = topology_.ranks();
  const Folding fold(n);
  const std::vector<double> prefix = fold.BlockPrefix(n);
  AddRounds(1, fold.FoldIn(1), true);
  // Survivor j holds the blocks [low[j], low[j] + 2 mask) of the survivors before the round of distance `mask`; it
  // keeps the half on its side of its partner and sends the other half.
  std::vector<int64_t> low(fold.pow2, 0);
  for (int64_t mask = fold.pow2 / 2; mask >= 1; mask >>= 1) {
    std::vector<Transfer> transfers;
    for (int64_t j = 0; j < fold.pow2; ++j) {
      int64_t send_begin = low[j];
      if ((j & mask) == 0) {
        send_begin = low[j] + mask;
      } else {
        low[j] += mask;
      }
      transfers.push_back({fold.Rank(j), fold.Rank(j ^ mask), prefix[send_begin + mask] - prefix[send_begin]});
    }
    AddRounds(1, transfers, true);
  }
  AddRounds(1, fold.FoldOut(1.0 / n), false);
}

void CostModel::AddDoublingAllGather() {
  const int64_t n = topology_.ranks();
  const Folding fold(n);
  const std::vector<double> prefix = fold.BlockPrefix(n);
  AddRounds(1, fold.FoldIn(1.0 / n), false);
  for (int64_t mask = 1; mask < fold.pow2; mask <<= 1) {
    std::vector<Transfer> transfers;
    for (int64_t j = 0; j < fold.pow2; ++j) {
      const int64_t group = j & ~(mask - 1);  // the survivors whose blocks j holds
      transfers.push_back({fold.Rank(j), fold.Rank(j ^ mask), prefix[group + mask] - prefix[group]});
    }
    AddRounds(1, transfers, false);
  }
  AddRounds(1, fold.FoldOut(static_cast<double>(n - 1) / n), false);
}

void CostModel::AddHierarchical(bool inter_tree) {
  const int64_t p = topology_.ranks_per_node;
  const int64_t q = topology_.nodes;
  slice_bytes_ = static_cast<double>(p) * options_.chunk_bytes;
  cold_rounds_ = p > 1 ? 1 : 0;  // the ReduceScatter rounds read the slice from memory
  std::vector<Transfer> intra;
  for (int64_t node = 0; node < q; ++node) {
    for (int64_t l = 0; l < p; ++l) intra.push_back({node * p + l, node * p + (l + 1) % p, 1.0 / p});
  }
  AddRounds(static_cast<double>(p - 1), intra, true);
  if (!inter_tree) {
    std::vector<Transfer> inter;
    for (int64_t node = 0; node < q; ++node) {
      for (int64_t l = 0; l < p; ++l) inter.push_back({node * p + l, ((node + 1) % q) * p + l, 1.0 / (p * q)});
    }
    AddRounds(static_cast<double>(q - 1), inter, true);
    AddRounds(static_cast<double>(q - 1), inter, false);
  } else {
    const int levels = CeilLog2(q);
    auto round = [&](int64_t d, bool up) {
      std::vector<Transfer> transfers;
      for (int64_t node = 0; node + d < q; node += 2 * d) {
        for (int64_t l = 0; l < p; ++l) {
          const int64_t near = node * p + l;
          const int64_t far = (node + d) * p + l;
          transfers.push_back(up ? Transfer{far, near, 1.0 / p} : Transfer{near, far, 1.0 / p});
        }
      }
      AddRounds(1, transfers, up);
    };
    for (int i = 0; i < levels; ++i) round(int64_t{1} << i, true);
    for (int i = levels - 1; i >= 0; --i) round(int64_t{1} << i, false);
  }
  AddRounds(static_cast<double>(p - 1), intra, false);
}

// Round k: every rank sends S/n to i + k. Each node has the same number X of ranks sending off-node (and, by
// symmetry, receiving from off-node), so the rounds are grouped by X.
void CostModel::AddPairwise() {
  const int64_t n = topology_.ranks();
  const int64_t p = topology_.ranks_per_node;
  std::map<int64_t, double> rounds_by_crossing;
  for (int64_t k = 1; k < n; ++k) rounds_by_crossing[PairwiseCrossingSenders(topology_, k)] += 1;
  const double block = 1.0 / n;
  for (const auto& [crossing, count] : rounds_by_crossing) {
    RoundLoad load;
    load.has_intra = crossing < p;
    load.intra = load.has_intra ? block : 0;
    load.has_inter = crossing > 0;
    load.inter = load.has_inter ? std::max(block, crossing * block / topology_.nics_per_node) : 0;
    rounds_.push_back({count, load});
  }
}

void CostModel::AddDissemination() {
  const int64_t n = topology_.ranks();
  for (int k = 0; k < CeilLog2(n); ++k) {
    std::vector<Transfer> transfers;
    for (int64_t i = 0; i < n; ++i) transfers.push_back({i, (i + (int64_t{1} << k)) % n, 0});
    AddRounds(1, transfers, false);
  }
}

void CostModel::BuildPipelinedRing(double reducing_rounds, double copying_rounds) {
  shape_ = Shape::kPipelinedRing;
  const int64_t n = topology_.ranks();
  channels_ = options_.channels > 0 ? options_.channels : topology_.nics_per_node;
  reducing_rounds_ = reducing_rounds;
  copying_rounds_ = copying_rounds;
  if (n == 1) return;
  // One chunk per channel on every ring link. The channels use the same intra-node links (their loads add up; a
  // rank's one outgoing link carries all of them, so intra_links_per_rank changes nothing) but each channel's
  // node-crossing hop is a stream of its own (one per node and channel), spread over the NICs.
  std::vector<Transfer> ring;
  for (int64_t i = 0; i < n; ++i) ring.push_back({i, (i + 1) % n, 1.0});
  stage_load_ = SummarizeRound(topology_, ring, true);
  stage_load_.intra *= channels_;
  stage_load_.reduce *= channels_;
  if (stage_load_.has_inter) {
    stage_load_.inter = std::max(1.0, static_cast<double>(channels_) / topology_.nics_per_node);
  }
  for (RoundLoad::Receive& r : stage_load_.receives) {  // every rank receives one chunk per channel
    r.intra_amount *= channels_;
    r.intra_messages *= channels_;
    r.inter_amount *= channels_;
    r.inter_messages *= channels_;
  }
}

void CostModel::BuildChain(bool reduces) {
  shape_ = Shape::kChain;
  reduces_ = reduces;
  // The chain 0 - 1 - ... - n-1 crosses from one node to the next Q-1 times; every link carries one stream.
  inter_hops_ = topology_.nodes - 1;
  intra_hops_ = static_cast<double>(topology_.ranks() - topology_.nodes);
  stage_load_.has_intra = intra_hops_ > 0;
  stage_load_.intra = 1;
  stage_load_.has_inter = inter_hops_ > 0;
  stage_load_.inter = 1;
  stage_load_.reduce = reduces ? 1 : 0;
}

void CostModel::BuildDoubleBinaryTree() {
  const DoubleBinaryTree trees = DoubleBinaryTreeParents(topology_.ranks());
  BuildPipelinedTrees({trees.first, trees.second});
}

void CostModel::BuildPipelinedTrees(const std::vector<std::vector<int64_t>>& trees) {
  shape_ = Shape::kPipelinedTrees;
  tree_share_ = 1.0 / static_cast<double>(trees.size());
  const int64_t n = topology_.ranks();
  std::vector<Transfer> transfers;
  std::vector<int64_t> children(n, 0);
  std::set<TreePath> paths;
  for (const std::vector<int64_t>& parents : trees) {
    std::vector<int64_t> tree_children(n, 0);
    for (int64_t r = 0; r < n; ++r) {
      const int64_t up = parents[r];
      if (up < 0) continue;
      // Steady state: one chunk going up each edge and another coming down.
      transfers.push_back({r, up, 1.0});
      transfers.push_back({up, r, 1.0});
      ++children[up];
      ++tree_children[up];
    }
    for (int64_t r = 0; r < n; ++r) {
      if (tree_children[r] > 0) continue;  // paths start at leaves
      TreePath path;
      for (int64_t v = r; parents[v] >= 0; v = parents[v]) {
        (topology_.NodeOf(v) == topology_.NodeOf(parents[v]) ? path.intra_hops : path.inter_hops) += 1;
        path.reduced_chunks += static_cast<double>(tree_children[parents[v]]);
      }
      paths.insert(path);
    }
  }
  stage_load_ = SummarizeRound(topology_, transfers, false);
  max_children_ = static_cast<double>(*std::max_element(children.begin(), children.end()));
  std::vector<RankStage> per_rank(n);
  for (const Transfer& t : transfers) {
    (topology_.NodeOf(t.src) == topology_.NodeOf(t.dst) ? per_rank[t.dst].intra_chunks
                                                        : per_rank[t.dst].inter_chunks) += t.amount;
  }
  for (int64_t r = 0; r < n; ++r) {
    per_rank[r].reduced_chunks = static_cast<double>(children[r]);
    ++rank_stages_[per_rank[r]];
  }
  // Keep the paths no other path beats in every respect.
  for (const TreePath& path : paths) {
    bool dominated = false;
    for (const TreePath& other : paths) {
      if (!(other == path) && other.intra_hops >= path.intra_hops && other.inter_hops >= path.inter_hops &&
          other.reduced_chunks >= path.reduced_chunks) {
        dominated = true;
      }
    }
    if (!dominated) paths_.push_back(path);
  }
}

double CostModel::Seconds(double bytes) const {
  if (collective_ == Collective::kBarrier) {
    bytes = 0;
  } else if (!(bytes > 0)) {
    return 0;
  }
  switch (shape_) {
    case Shape::kRounds:
      return RoundsSeconds(bytes);
    case Shape::kPipelinedRing:
      return PipelinedRingSeconds(bytes);
    case Shape::kChain:
      return ChainSeconds(bytes);
    case Shape::kPipelinedTrees:
      return PipelinedTreesSeconds(bytes);
  }
  return 0;
}

double CostModel::RoundsSeconds(double bytes) const {
  if (slice_bytes_ > 0 && bytes > slice_bytes_) {
    // Slice after slice; only the rounds that first read a slice see the whole buffer's working set.
    auto slice = [&](double size) {
      double seconds = 0;
      for (size_t i = 0; i < rounds_.size(); ++i) {
        const double working_set = i < cold_rounds_ ? bytes : size;
        seconds += rounds_[i].count * RoundSeconds(rounds_[i].load, size, profile_, working_set);
      }
      return seconds;
    };
    const double full = std::floor(bytes / slice_bytes_);
    const double rest = bytes - full * slice_bytes_;
    return full * slice(slice_bytes_) + (rest > 0 ? slice(rest) : 0);
  }
  double seconds = 0;
  for (const Rounds& r : rounds_) seconds += r.count * RoundSeconds(r.load, bytes, profile_, bytes);
  return seconds;
}

// A pipeline of stages fed with chunks of `chunk` bytes, the last one partial (`last` bytes); `stage(size)` gives
// the slowest stage's time and `first(size)` the time for one chunk of that size to pass through all the stages.
// The makespan is at most first(chunk) + (k - 2) stage(chunk) + stage(last) for k >= 2 chunks (the bound of a
// flow shop; exact when all stages take the same time), and first(bytes) for a single chunk. It grows with `bytes`:
// a new chunk adds a stage's latency.
template <typename First, typename Stage>
double PipelineSeconds(double bytes, double chunk, const First& first, const Stage& stage) {
  const double k = ChunkCount(bytes, chunk);
  if (k <= 1) return first(bytes);
  const double last = bytes - (k - 1) * chunk;
  return first(chunk) + (k - 2) * stage(chunk) + stage(last);
}

// A pipeline stage that moves a chunk (`move` seconds) and reduces the previous one (`reduce`): both at once when the
// profile says transfers overlap reductions, one after the other otherwise.
double CostModel::Overlap(double move, double reduce) const {
  return profile_.transfers_use_cores ? move + reduce : std::max(move, reduce);
}

double CostModel::PipelinedRingSeconds(double bytes) const {
  if (topology_.ranks() == 1) return 0;
  const double n = static_cast<double>(topology_.ranks());
  const double per_channel = bytes / (n * channels_);
  // The AllReduce runs the buffer in slices of n chunks per channel (ring_pipeline.cc). Its ReduceScatter rounds
  // read each slice from memory (the whole buffer is the working set); its AllGather rounds forward blocks reduced
  // moments before, still in cache (the slice is the working set), as in hierarchical's slices.
  const double slice = std::min(bytes, n * channels_ * options_.chunk_bytes);
  auto move = [&](double chunk) { return TransferSeconds(stage_load_, chunk, profile_, bytes); };
  auto reduce = [&](double chunk) { return profile_.ReduceSeconds(stage_load_.reduce * chunk, bytes); };
  auto forward = [&](double chunk) { return TransferSeconds(stage_load_, chunk, profile_, slice); };
  // A reducing round is a two-stage pipeline (receive, reduce); a copying round has the one stage.
  const double reducing_round = PipelineSeconds(
      per_channel, options_.chunk_bytes, [&](double c) { return move(c) + reduce(c); },
      [&](double c) { return Overlap(move(c), reduce(c)); });
  const double copying_round = PipelineSeconds(per_channel, options_.chunk_bytes, forward, forward);
  return reducing_rounds_ * reducing_round + copying_rounds_ * copying_round;
}

double CostModel::ChainSeconds(double bytes) const {
  if (intra_hops_ + inter_hops_ == 0) return 0;
  auto intra = [&](double c) { return profile_.intra.Seconds(c, bytes); };
  auto inter = [&](double c) { return profile_.inter.Seconds(c, bytes); };
  auto reduce = [&](double c) { return reduces_ ? profile_.ReduceSeconds(c, bytes) : 0.0; };
  auto first = [&](double c) { return intra_hops_ * (intra(c) + reduce(c)) + inter_hops_ * (inter(c) + reduce(c)); };
  auto stage = [&](double c) {
    double t = 0;
    if (stage_load_.has_intra) t = std::max(t, intra(c));
    if (stage_load_.has_inter) t = std::max(t, inter(c));
    return Overlap(t, reduce(c));
  };
  return PipelineSeconds(bytes, options_.chunk_bytes, first, stage);
}

double CostModel::PipelinedTreesSeconds(double bytes) const {
  // A rank reduces each child's chunk in turn.
  auto reduce = [&](double c) { return max_children_ * profile_.ReduceSeconds(c, bytes); };
  // The first chunk goes up, then down, one hop per step: each hop moves that chunk alone (a full stage has chunks
  // going up and down every edge at once; the first one meets none of them).
  auto first_intra = [&](double c) { return profile_.intra.Seconds(c, bytes); };
  auto first_inter = [&](double c) { return profile_.inter.Seconds(c, bytes); };
  auto first = [&](double c) {
    double t = 0;
    for (const TreePath& p : paths_) {
      t = std::max(t, 2 * (p.intra_hops * first_intra(c) + p.inter_hops * first_inter(c)) +
                          p.reduced_chunks * profile_.ReduceSeconds(c, bytes));
    }
    return t;
  };
  // A full stage moves a chunk up and another down every edge of every tree. Through NICs or copy engines: the
  // busiest link or port, overlapped with the busiest rank's reductions. With the ranks' cores copying, each rank
  // copies the chunks it receives, whatever their link class, then reduces its children's; the ranks are unevenly
  // loaded, and where they shared cores when the profile was measured (rank_core_share < 1) a busy rank takes the
  // time its lightly loaded neighbours leave: the stage is the busiest rank's work at a whole core's rate, or the
  // ranks' total work over the cores, whichever is longer.
  auto stage = [&](double c) {
    if (!profile_.transfers_use_cores) return Overlap(TransferSeconds(stage_load_, c, profile_, bytes), reduce(c));
    const double intra_chunk = profile_.intra.Seconds(c, bytes), inter_chunk = profile_.inter.Seconds(c, bytes);
    const double reduce_chunk = profile_.ReduceSeconds(c, bytes);
    double busiest = 0, total = 0;
    for (const auto& [work, ranks] : rank_stages_) {
      const double t =
          work.intra_chunks * intra_chunk + work.inter_chunks * inter_chunk + work.reduced_chunks * reduce_chunk;
      busiest = std::max(busiest, t);
      total += static_cast<double>(ranks) * t;
    }
    return std::max(busiest * profile_.rank_core_share, total / static_cast<double>(topology_.ranks()));
  };
  return PipelineSeconds(bytes * tree_share_, options_.chunk_bytes, first, stage);
}

absl::StatusOr<double> CostModel::PredictSeconds(double bytes) const {
  if (!std::isfinite(bytes) || bytes < 0) {
    return absl::InvalidArgumentError(absl::StrCat("bytes=", bytes, " must be finite and >= 0"));
  }
  return Seconds(bytes);
}

absl::StatusOr<double> PredictSeconds(Collective collective, Algorithm algorithm, double bytes,
                                      const Topology& topology, const Profile& profile, const CostOptions& options) {
  absl::StatusOr<CostModel> model = CostModel::Create(collective, algorithm, topology, profile, options);
  if (!model.ok()) return model.status();
  return model->PredictSeconds(bytes);
}

}  // namespace models
}  // namespace kcoll
