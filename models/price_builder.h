// What a price (models/prices/) builds a CostModel with: the call it prices (collective, machine, tuning) and the
// shapes the model knows how to time (cost_model.h): rounds of simultaneous transfers, optionally run slice by slice,
// and the pipelined ring, chain and trees.
#ifndef KCOLL_MODELS_PRICE_BUILDER_H_
#define KCOLL_MODELS_PRICE_BUILDER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/names.h"
#include "models/cost_model.h"
#include "models/link_load.h"
#include "models/machine.h"

namespace kcoll {
namespace models {

class PriceBuilder {
 public:
  explicit PriceBuilder(CostModel& model) : model_(model) {}

  Collective collective() const { return model_.collective_; }
  const Topology& topology() const { return model_.topology_; }
  const CostOptions& options() const { return model_.options_; }
  int64_t ranks() const { return model_.topology_.ranks(); }
  const Profile& profile() const { return model_.profile_; }

  // `count` identical rounds in which every transfer happens at once (amounts are fractions of S), each receiver
  // reducing what it receives when `reduces`. Transfers from a rank to itself cost nothing.
  void AddRounds(double count, std::vector<Transfer> transfers, bool reduces) {
    model_.AddRounds(count, std::move(transfers), reduces);
  }
  // `count` rounds of a load the price summarised itself, in which all ranks together send `sent_fraction` of S.
  void AddRoundLoad(double count, const RoundLoad& load, double sent_fraction) {
    model_.AddRoundLoad(count, load, sent_fraction);
  }
  // One round of messages whose sizes do not depend on S (amounts in bytes here): headers such as the block sizes
  // bruck's alltoallv sends ahead of its blocks. Priced as the round's latency; their bytes count in SentBytes.
  void AddFixedRound(std::vector<Transfer> transfers) { model_.AddFixedRound(std::move(transfers)); }
  // The rounds run the buffer slice by slice, slices of `slice_bytes`: the first `cold_rounds` rounds added read each
  // slice from memory (the whole buffer is their working set), the others find it in cache (the slice is).
  void InSlices(double slice_bytes, size_t cold_rounds) {
    model_.slice_bytes_ = slice_bytes;
    model_.cold_rounds_ = cold_rounds;
  }

  // The pipelined shapes (each model is one of them, or rounds): the channels' rings of ring_pipelined, each round cut
  // into chunks; the chain 0 - 1 - ... - n-1 with chunks streaming along it; chunks streaming up and back down trees
  // (parent arrays, -1 at the root), each tree carrying an equal share of S.
  void PipelinedRing(double reducing_rounds, double copying_rounds) {
    model_.BuildPipelinedRing(reducing_rounds, copying_rounds);
  }
  void Chain(bool reduces) { model_.BuildChain(reduces); }
  void PipelinedTrees(const std::vector<std::vector<int64_t>>& trees) { model_.BuildPipelinedTrees(trees); }

 private:
  CostModel& model_;
};

}  // namespace models
}  // namespace kcoll

#endif  // KCOLL_MODELS_PRICE_BUILDER_H_
