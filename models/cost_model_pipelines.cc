// The cost model's pipelined algorithms (cost_model.h): the pipelined ring, the chain and the pipelined trees are
// priced as chunks flowing through stages rather than as rounds.
#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "models/cost_model.h"

namespace kcoll {
namespace models {

namespace {

double ChunkCount(double bytes, double chunk_bytes) { return std::max(1.0, std::ceil(bytes / chunk_bytes)); }

}  // namespace

void CostModel::BuildPipelinedRing(double reducing_rounds, double copying_rounds) {
  shape_ = Shape::kPipelinedRing;
  const int64_t n = topology_.ranks();
  channels_ = options_.channels > 0 ? options_.channels : topology_.nics_per_node;
  reducing_rounds_ = reducing_rounds;
  copying_rounds_ = copying_rounds;
  if (n == 1) return;
  sent_per_byte_ = reducing_rounds + copying_rounds;  // every round, each of the n ranks sends S/n
  std::vector<Transfer> ring;
  for (int64_t i = 0; i < n; ++i) ring.push_back({i, (i + 1) % n, 1.0});
  stage_load_ = SummarizeRound(topology_, ring, true);  // one channel's
  // The stage of every channel count a call may run, built once rather than on every Seconds().
  ring_loads_.reserve(channels_);
  for (int c = 1; c <= channels_; ++c) ring_loads_.push_back(RingStageLoad(c));
}

int CostModel::RingChannels(double bytes) const {
  const double slice = static_cast<double>(topology_.ranks()) * options_.chunk_bytes;
  const double full_slices = std::floor(bytes / slice);
  return static_cast<int>(std::max(1.0, std::min(static_cast<double>(channels_), full_slices)));
}

// One chunk per channel on every ring link. The channels use the same intra-node links (their loads add up; a rank's
// one outgoing link carries all of them, so intra_links_per_rank changes nothing) but each channel's node-crossing
// hop is a stream of its own (one per node and channel), spread over the NICs.
RoundLoad CostModel::RingStageLoad(int channels) const {
  RoundLoad load = stage_load_;
  load.intra *= channels;
  load.reduce *= channels;
  if (load.has_inter) {
    load.inter = std::max(1.0, static_cast<double>(channels) / topology_.nics_per_node);
    load.inter_streams = StreamsPerNic(topology_, channels);
  }
  for (RoundLoad::Receive& r : load.receives) {  // every rank receives one chunk per channel
    r.intra_amount *= channels;
    r.intra_messages *= channels;
    r.inter_amount *= channels;
    r.inter_messages *= channels;
  }
  return load;
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
  stage_load_.inter_streams = 1;
  stage_load_.reduce = reduces ? 1 : 0;
  sent_per_byte_ = static_cast<double>(topology_.ranks() - 1);  // S over each link of the chain
}

void CostModel::BuildPipelinedTrees(const std::vector<std::vector<int64_t>>& trees) {
  shape_ = Shape::kPipelinedTrees;
  tree_share_ = 1.0 / static_cast<double>(trees.size());
  const int64_t n = topology_.ranks();
  std::vector<Transfer> transfers;
  std::vector<int64_t> children(n, 0);
  std::set<TreePath> paths;
  std::vector<int64_t> crossing_trees(topology_.nodes, 0);  // per node: the trees with an edge leaving it
  for (const std::vector<int64_t>& parents : trees) {
    std::vector<int64_t> tree_children(n, 0);
    std::vector<bool> crosses(topology_.nodes, false);
    for (int64_t r = 0; r < n; ++r) {
      const int64_t up = parents[r];
      if (up < 0) continue;
      if (topology_.NodeOf(r) != topology_.NodeOf(up)) {
        crosses[topology_.NodeOf(r)] = crosses[topology_.NodeOf(up)] = true;
      }
      // Steady state: one chunk going up each edge and another coming down.
      transfers.push_back({r, up, 1.0});
      transfers.push_back({up, r, 1.0});
      ++children[up];
      ++tree_children[up];
    }
    for (int64_t node = 0; node < topology_.nodes; ++node) crossing_trees[node] += crosses[node] ? 1 : 0;
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
  const int64_t most_crossing = *std::max_element(crossing_trees.begin(), crossing_trees.end());
  first_inter_streams_ = std::max<int64_t>(1, StreamsPerNic(topology_, most_crossing));
  // Each tree carries its share of S up every edge and back down.
  sent_per_byte_ = tree_share_ * static_cast<double>(transfers.size());
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
  const int channels = RingChannels(bytes);
  const RoundLoad& load = ring_loads_[channels - 1];
  const double per_channel = bytes / (n * channels);
  // The AllReduce runs the buffer in slices of n chunks per channel (sliced_ring.cc). Its ReduceScatter rounds
  // read each slice from memory (the whole buffer is the working set); its AllGather rounds forward blocks reduced
  // moments before, still in cache (the slice is the working set), as in hierarchical's slices.
  const double slice = std::min(bytes, n * channels * options_.chunk_bytes);
  auto move = [&](double chunk) { return TransferSeconds(load, chunk, profile_, bytes); };
  auto reduce = [&](double chunk) { return profile_.ReduceSeconds(load.reduce * chunk, bytes); };
  auto forward = [&](double chunk) { return TransferSeconds(load, chunk, profile_, slice); };
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
  auto inter = [&](double c) { return profile_.inter.SecondsOfStreams(c, 1, bytes); };
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
  // going up and down every edge at once; the first one meets none of them but the other trees' first chunks).
  auto first_intra = [&](double c) { return profile_.intra.Seconds(c, bytes); };
  auto first_inter = [&](double c) { return profile_.inter.SecondsOfStreams(c, first_inter_streams_, bytes); };
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

}  // namespace models
}  // namespace kcoll
