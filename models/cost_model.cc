#include "models/cost_model.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace kcoll {
namespace models {

namespace {

// Most channels ring_pipelined accepts.
constexpr int kMaxChannels = 1024;

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

namespace {

// What a round's transfers send: in all (a rank's transfers to itself aside), and between nodes.
struct SentAmount {
  double all = 0;
  double crossing = 0;
};

SentAmount SentBy(const Topology& topology, const std::vector<Transfer>& transfers) {
  SentAmount sent;
  for (const Transfer& t : transfers) {
    sent.all += t.src != t.dst ? t.amount : 0;
    sent.crossing += topology.NodeOf(t.src) != topology.NodeOf(t.dst) ? t.amount : 0;
  }
  return sent;
}

}  // namespace

void CostModel::AddRounds(double count, std::vector<Transfer> transfers, bool reduces) {
  if (count <= 0 || transfers.empty()) return;
  const SentAmount sent = SentBy(topology_, transfers);
  RoundLoad load = SummarizeRound(topology_, std::move(transfers), reduces);
  if (!load.has_intra && !load.has_inter) return;
  rounds_.push_back({count, load});
  sent_per_byte_ += count * sent.all;
  inter_sent_per_byte_ += count * sent.crossing;
}

void CostModel::AddRoundLoad(double count, const RoundLoad& load, double sent_fraction) {
  if (count <= 0) return;
  rounds_.push_back({count, load});
  sent_per_byte_ += count * sent_fraction;
  if (load.has_inter) inter_sent_known_ = false;  // a load, not its transfers
}

void CostModel::AddFixedRound(std::vector<Transfer> transfers) {
  const SentAmount sent = SentBy(topology_, transfers);
  for (Transfer& t : transfers) t.amount = 0;  // latency only: a few bytes per message, next to the round's alpha
  RoundLoad load = SummarizeRound(topology_, std::move(transfers), /*reduces=*/false);
  if (!load.has_intra && !load.has_inter) return;
  rounds_.push_back({1, load});
  sent_fixed_bytes_ += sent.all;
  inter_sent_fixed_bytes_ += sent.crossing;
}

std::optional<double> CostModel::InterNodeSentBytes(double bytes) const {
  if (topology_.nodes == 1) return 0.0;
  if (shape_ != Shape::kRounds || !inter_sent_known_) return std::nullopt;
  return inter_sent_per_byte_ * bytes + inter_sent_fixed_bytes_;
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
