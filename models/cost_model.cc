#include "models/cost_model.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "models/trees.h"

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
    case Algorithm::kBidirectionalRing:
      BuildBidirectionalRing(reducing, copying);
      break;
    case Algorithm::kTree:
      BuildBinomialTree();
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
      BuildLinear();
      break;
    case Algorithm::kAuto:
    case Algorithm::kDirect:  // zero-copy on registered buffers: not priced, taken whenever they are registered
      break;                  // refused by Create
  }
}

void CostModel::BuildBidirectionalRing(double reducing_rounds, double copying_rounds) {
  const int64_t n = topology_.ranks();
  std::vector<Transfer> transfers;
  for (int64_t i = 0; i < n; ++i) {
    transfers.push_back({i, (i + 1) % n, 0.5 / n});
    transfers.push_back({i, (i + n - 1) % n, 0.5 / n});
  }
  AddRounds(reducing_rounds, transfers, true);
  AddRounds(copying_rounds, transfers, false);
  // Each direction runs the sliced ring schedule (ring_pipeline.cc): slices of n chunks, each through the
  // ReduceScatter rounds, which read it from memory, then the AllGather rounds, which find it in cache.
  slice_bytes_ = 2.0 * static_cast<double>(n) * options_.chunk_bytes;
  cold_rounds_ = 1;
}

void CostModel::BuildBinomialTree() {
  const int64_t n = topology_.ranks();
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
}

void CostModel::BuildLinear() {
  const int64_t n = topology_.ranks();
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
