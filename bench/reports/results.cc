#include "bench/reports/results.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/named_values.h"
#include "models/analysis/statistics.h"

namespace kcoll {
namespace bench {
namespace {

std::tuple<int, size_t, int, int, int> KeyOf(const Row& r) {
  return {static_cast<int>(r.collective), r.bytes, static_cast<int>(r.type), r.op ? static_cast<int>(*r.op) : -1,
          r.root};
}

bool SameRow(const Row& a, const Row& b) {
  return a.collective == b.collective && a.implementation == b.implementation && a.kind == b.kind &&
         a.bytes == b.bytes && a.count == b.count && a.type == b.type && a.op == b.op && a.root == b.root;
}

// The identity of the row's size.
SizeIdentity IdentityOf(const Row& r) { return SizeIdentity{r.collective, r.bytes, r.type, r.op, r.root}; }

}  // namespace

IterationStats ComputeIterationStats(const std::vector<double>& times_us) {
  IterationStats s;
  if (times_us.empty()) return s;
  const size_t n = times_us.size();
  s.min_us = *std::min_element(times_us.begin(), times_us.end());
  s.max_us = *std::max_element(times_us.begin(), times_us.end());
  s.p50_us = models::Percentile(times_us, 50);
  s.p95_us = models::Percentile(times_us, 95);
  s.p99_us = models::Percentile(times_us, 99);
  double sum = 0;
  for (double t : times_us) sum += t;
  s.avg_us = sum / n;
  double var = 0;
  for (double t : times_us) var += (t - s.avg_us) * (t - s.avg_us);
  s.stdev_us = std::sqrt(var / n);
  s.cv_pct = s.avg_us > 0 ? 100.0 * s.stdev_us / s.avg_us : 0;
  return s;
}

std::optional<double> EfficiencyPct(const Row& row, bool in_place) {
  const std::optional<Measurement>& m = in_place ? row.in_place : row.out_of_place;
  if (!m.has_value() || !row.ideal_busbw_gbps.has_value() || *row.ideal_busbw_gbps <= 0) return std::nullopt;
  return 100.0 * m->busbw_gbps / *row.ideal_busbw_gbps;
}

std::string AutoRanText(const Row& row) {
  if (!row.model_algorithm.has_value()) return "";
  std::string text(AlgorithmName(*row.model_algorithm));
  const std::vector<Algorithm> rounds =
      row.out_of_place.has_value() ? row.out_of_place->round_algorithms : std::vector<Algorithm>();
  std::vector<std::string> others;
  std::vector<Algorithm> seen;
  for (Algorithm a : rounds) {
    if (a == *row.model_algorithm || std::find(seen.begin(), seen.end(), a) != seen.end()) continue;
    seen.push_back(a);
    others.push_back(absl::StrCat(AlgorithmName(a), " in ", std::count(rounds.begin(), rounds.end(), a)));
  }
  if (!others.empty()) absl::StrAppend(&text, " (", absl::StrJoin(others, ", "), " of ", rounds.size(), " rounds)");
  return text;
}

std::vector<BestVsMpi> ComputeBestVsMpi(const std::vector<Row>& rows) {
  std::map<std::tuple<int, size_t, int, int, int>, BestVsMpi> best;
  std::map<std::tuple<int, size_t, int, int, int>, double> best_p50_us;
  std::map<std::tuple<int, size_t, int, int, int>, double> mpi;
  std::map<std::tuple<int, size_t, int, int, int>, double> mpi_p50_us;
  auto p50 = [](const Row& r) { return r.out_of_place->stats ? r.out_of_place->stats->p50_us : 0.0; };
  std::vector<std::tuple<int, size_t, int, int, int>> order;
  for (const Row& r : rows) {
    if (!r.out_of_place.has_value()) continue;
    const auto key = KeyOf(r);
    if (r.kind == "mpi") {
      mpi[key] = r.out_of_place->busbw_gbps;
      mpi_p50_us[key] = p50(r);
    } else if (r.kind == "kcoll") {
      auto it = best.find(key);
      if (it == best.end()) {
        BestVsMpi b;
        static_cast<SizeIdentity&>(b) = IdentityOf(r);
        b.best_algorithm = r.implementation;
        b.kcoll_busbw = r.out_of_place->busbw_gbps;
        best.emplace(key, b);
        best_p50_us[key] = p50(r);
        order.push_back(key);
      } else if (r.out_of_place->busbw_gbps > it->second.kcoll_busbw) {
        it->second.best_algorithm = r.implementation;
        it->second.kcoll_busbw = r.out_of_place->busbw_gbps;
        best_p50_us[key] = p50(r);
      }
    }
  }
  std::vector<BestVsMpi> out;
  for (const auto& key : order) {
    auto m = mpi.find(key);
    if (m == mpi.end()) continue;
    BestVsMpi b = best[key];
    b.mpi_busbw = m->second;
    b.ratio = m->second > 0 ? b.kcoll_busbw / m->second : 0;
    if (best_p50_us[key] > 0 && mpi_p50_us[key] > 0) b.ratio_p50 = mpi_p50_us[key] / best_p50_us[key];
    out.push_back(b);
  }
  return out;
}

std::vector<AutoVsFastest> ComputeAutoVsFastest(const std::vector<Row>& rows) {
  std::vector<AutoVsFastest> out;
  for (const Row& a : rows) {
    if (a.kind != "kcoll" || a.implementation != "auto" || !a.out_of_place.has_value()) continue;
    const bool auto_calibrated = InCalibratedState(*a.out_of_place);
    // In the calibrated state, the times of the calibrated-state rounds (--rounds).
    auto time_us = [auto_calibrated](const Measurement& m) {
      return auto_calibrated ? CalibratedStateTimeUs(m) : m.stats ? m.stats->p50_us : m.time_us;
    };
    if (!(time_us(*a.out_of_place) > 0)) continue;
    const Row* fastest = nullptr;
    for (const Row& r : rows) {
      if (r.kind != "kcoll" || r.implementation == "auto" || !r.out_of_place.has_value()) continue;
      if (KeyOf(r) != KeyOf(a) || (auto_calibrated && !InCalibratedState(*r.out_of_place))) continue;
      if (!(time_us(*r.out_of_place) > 0)) continue;
      if (fastest == nullptr || time_us(*r.out_of_place) < time_us(*fastest->out_of_place)) fastest = &r;
    }
    if (fastest == nullptr) continue;
    AutoVsFastest v;
    static_cast<SizeIdentity&>(v) = IdentityOf(a);
    if (a.model_algorithm.has_value()) v.auto_ran = std::string(AlgorithmName(*a.model_algorithm));
    v.fastest = fastest->implementation;
    v.auto_us = time_us(*a.out_of_place);
    v.fastest_us = time_us(*fastest->out_of_place);
    v.ratio = v.auto_us / v.fastest_us;
    for (const Row& r : rows) {  // the row of the algorithm auto ran
      if (v.auto_ran.empty() || r.kind != "kcoll" || r.implementation != v.auto_ran || KeyOf(r) != KeyOf(a)) continue;
      if (!r.out_of_place.has_value() || (auto_calibrated && !InCalibratedState(*r.out_of_place))) continue;
      if (time_us(*r.out_of_place) > 0) v.choice_ratio = time_us(*r.out_of_place) / v.fastest_us;
    }
    v.auto_link_ratio = a.out_of_place->link_ratio;
    v.fastest_link_ratio = fastest->out_of_place->link_ratio;
    v.calibrated_state = auto_calibrated && InCalibratedState(*fastest->out_of_place);
    for (const Row& r : rows) {  // round by round, against every other algorithm
      if (r.kind != "kcoll" || r.implementation == "auto" || !r.out_of_place.has_value() || KeyOf(r) != KeyOf(a)) {
        continue;
      }
      const std::optional<double> paired = PairedRatio(a.out_of_place->round_p50_us, r.out_of_place->round_p50_us);
      if (paired.has_value() && (!v.paired_ratio.has_value() || *paired > *v.paired_ratio)) {
        v.paired_ratio = paired;
        v.paired_against = r.implementation;
        v.paired_rounds = static_cast<int>(a.out_of_place->round_p50_us.size());
      }
    }
    out.push_back(v);
  }
  return out;
}

std::optional<double> PairedRatio(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.size() < 2) return std::nullopt;
  std::vector<double> ratios;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a[i] > 0) || !(b[i] > 0)) return std::nullopt;
    ratios.push_back(a[i] / b[i]);
  }
  return models::Median(std::move(ratios));
}

bool InCalibratedState(double link_ratio) {
  return link_ratio > 0 && link_ratio <= kCalibratedStateTolerance && link_ratio >= 1 / kCalibratedStateTolerance;
}

bool InCalibratedState(const Measurement& m) {
  if (m.calibrated_rounds.has_value()) return m.calibrated_rounds->rounds > 0 && m.calibrated_rounds->p50_us > 0;
  return m.link_ratio.has_value() && InCalibratedState(*m.link_ratio);
}

double CalibratedStateTimeUs(const Measurement& m) {
  if (m.calibrated_rounds.has_value() && m.calibrated_rounds->p50_us > 0) return m.calibrated_rounds->p50_us;
  return m.stats ? m.stats->p50_us : m.time_us;
}

std::optional<double> CalibratedStateModelErrorPct(const Measurement& m) {
  return m.calibrated_rounds.has_value() ? m.calibrated_rounds->model_error_pct : m.model_error_pct;
}

std::vector<models::AlgorithmError> ModelErrors(const std::vector<Row>& rows, bool calibrated_state_only) {
  std::vector<models::RowPrediction> predictions;
  for (const Row& row : rows) {
    if (!row.model_algorithm.has_value() || !row.out_of_place.has_value()) continue;
    const Measurement& m = *row.out_of_place;
    const std::optional<double> error = calibrated_state_only ? CalibratedStateModelErrorPct(m) : m.model_error_pct;
    if (!m.model_us.has_value() || !error.has_value()) continue;
    if (calibrated_state_only && !InCalibratedState(m)) continue;
    models::RowPrediction p;
    p.measured = {row.collective, *row.model_algorithm, static_cast<double>(row.bytes), m.time_us * 1e-6};
    p.modeled = true;
    p.predicted_seconds = *m.model_us * 1e-6;
    p.error_percent = *error;
    predictions.push_back(p);
  }
  return models::SummarizeErrors(predictions);
}

void ResultSink::Start() {
  for (ResultListener* l : listeners_) l->OnRunStart(info_);
}

void ResultSink::EnterBlock(Collective collective, const std::string& implementation, const std::string& kind) {
  if (block_.has_value() && block_->collective == collective && block_->implementation == implementation &&
      block_->kind == kind) {
    return;
  }
  CompletePending();
  EndBlock();
  block_ = Block{collective, implementation, kind};
  block_summary_ = BlockSummary{};
  block_notes_.clear();
  for (ResultListener* l : listeners_) l->OnBlockStart(*block_);
}

void ResultSink::CompletePending() {
  if (!pending_.has_value()) return;
  Row& row = *pending_;
  for (const std::optional<Measurement>* m : {&row.out_of_place, &row.in_place}) {
    if (!m->has_value()) continue;
    const Measurement& meas = **m;
    if (meas.wrong.has_value()) {
      wrong_ += *meas.wrong;
      block_summary_.wrong += *meas.wrong;
    }
    block_summary_.avg_busbw += meas.busbw_gbps;  // a sum until EndBlock
    if (meas.late_starts.has_value()) {
      block_summary_.late_starts = block_summary_.late_starts.value_or(0) + *meas.late_starts;
      block_summary_.aligned_iterations += meas.iterations;
    }
    ++block_summary_.measurements;
    if (row.kind == "kcoll") {
      kcoll_busbw_sum_ += meas.busbw_gbps;
      ++kcoll_measurements_;
    }
  }
  if (row.kind == "mpi" && row.out_of_place.has_value()) mpi_busbw_[KeyOf(row)] = row.out_of_place->busbw_gbps;
  if (row.kind == "kcoll" && row.out_of_place.has_value()) {
    auto it = mpi_busbw_.find(KeyOf(row));
    if (it != mpi_busbw_.end() && it->second > 0) row.vs_mpi = row.out_of_place->busbw_gbps / it->second;
  }
  rows_.push_back(row);
  pending_.reset();
  for (ResultListener* l : listeners_) l->OnRow(rows_.back());
}

void ResultSink::EndBlock() {
  if (!block_.has_value()) return;
  BlockSummary summary = block_summary_;
  if (summary.measurements > 0) summary.avg_busbw /= summary.measurements;
  for (ResultListener* l : listeners_) l->OnBlockEnd(*block_, summary);
  block_.reset();
}

void ResultSink::Record(const Row& identity, bool in_place, const Measurement& m) {
  EnterBlock(identity.collective, identity.implementation, identity.kind);
  if (pending_.has_value() && !SameRow(*pending_, identity)) CompletePending();
  if (!pending_.has_value()) {
    pending_ = identity;
    pending_->out_of_place.reset();
    pending_->in_place.reset();
  }
  (in_place ? pending_->in_place : pending_->out_of_place) = m;
  if (in_place) CompletePending();
}

void ResultSink::Note(Collective collective, const std::string& implementation, const std::string& kind,
                      const std::string& note) {
  EnterBlock(collective, implementation, kind);
  if (std::find(block_notes_.begin(), block_notes_.end(), note) != block_notes_.end()) return;
  block_notes_.push_back(note);
  CompletePending();
  for (ResultListener* l : listeners_) l->OnNote(*block_, note);
}

void ResultSink::Finish(bool interrupted) {
  CompletePending();
  EndBlock();
  RunSummary summary;
  summary.wrong = wrong_;
  summary.failures = failures_;
  summary.errors = errors_;
  summary.avg_busbw_kcoll = kcoll_measurements_ > 0 ? kcoll_busbw_sum_ / kcoll_measurements_ : 0;
  summary.best_vs_mpi = ComputeBestVsMpi(rows_);
  summary.auto_vs_fastest = ComputeAutoVsFastest(rows_);
  summary.model_errors = ModelErrors(rows_);
  summary.model_errors_calibrated_state = ModelErrors(rows_, /*calibrated_state_only=*/true);
  summary.model_states = model_states_;
  summary.interrupted = interrupted;
  for (ResultListener* l : listeners_) l->OnFinish(summary);
}

std::string NcclTypeName(DataType type) {
  static constexpr NamedValue<DataType> kNcclTestsNames[] = {
      {DataType::kInt8, "int8"},     {DataType::kUint8, "uint8"},       {DataType::kInt32, "int32"},
      {DataType::kUint32, "uint32"}, {DataType::kInt64, "int64"},       {DataType::kUint64, "uint64"},
      {DataType::kFloat16, "half"},  {DataType::kBfloat16, "bfloat16"}, {DataType::kFloat32, "float"},
      {DataType::kFloat64, "double"}};
  return std::string(NameIn(kNcclTestsNames, type, "?"));
}

std::string NcclOpName(const std::optional<ReduceOp>& op) {
  return op.has_value() ? std::string(ReduceOpName(*op)) : "none";
}

int ShownDevice(const RankInfo& rank, const RunInfo& info) {
  return rank.device >= 0 ? rank.device : rank.rank % std::max(1, info.ranks_per_node);
}

}  // namespace bench
}  // namespace kcoll
