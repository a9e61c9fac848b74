#include "bench/driver/model_rounds.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "bench/calibration/calibrate_in_run.h"
#include "bench/driver/injected_faults.h"
#include "bench/driver/timing.h"
#include "choice/auto_choice.h"
#include "models/analysis/statistics.h"

namespace kcoll {
namespace bench {

calibration::CalibrationOptions CalibrationSweep(const BenchOptions& options) {
  calibration::CalibrationOptions sweep;
  sweep.seconds_per_size = options.calibrate_ms / 1e3;
  sweep.max_bytes = static_cast<double>(options.calibrate_max_bytes);
  return sweep;
}

namespace {

// Rank 0: the state whose probe time is nearest (in ratio) to `probe_seconds`; -1 without a reading.
int NearestState(const BenchContext& ctx, double probe_seconds) {
  if (!(probe_seconds > 0)) return -1;
  int best = -1;
  double best_distance = 0;
  for (size_t i = 0; i < ctx.model.states.size(); ++i) {
    if (!(ctx.model.states[i].probe_seconds > 0)) continue;
    const double distance = std::abs(std::log(probe_seconds / ctx.model.states[i].probe_seconds));
    if (best < 0 || distance < best_distance) {
      best = static_cast<int>(i);
      best_distance = distance;
    }
  }
  return best;
}

double RatioTo(const BenchContext& ctx, int state, double probe_seconds) {
  return state < 0 || !(probe_seconds > 0) ? 0 : probe_seconds / ctx.model.states[state].probe_seconds;
}

// The file of the k-th profile (k >= 2) of `--calibrate path`: path.state<k>.json.
std::string StatePath(const std::string& path, size_t k) {
  const std::string stem = absl::EndsWith(path, ".json") ? path.substr(0, path.size() - 5) : path;
  return absl::StrCat(stem, ".state", k, ".json");
}

bool IsAuto(const Implementation& impl) { return impl.kind() == "kcoll" && impl.name() == "auto"; }

// --recalibrate (collective): the link probe before a round, when the round may calibrate again or is auto's and
// there are several states to choose from; 0 otherwise (and on ranks other than 0).
double ProbeBeforeRound(BenchContext& ctx, const Implementation& impl) {
  if (ctx.model.states.empty() || ctx.model.kcoll == nullptr) return 0;
  if (ctx.model.recalibrations_left <= 0 && !(IsAuto(impl) && ctx.model.states.size() > 1)) return 0;
  return ProbeLinks(ctx);
}

// A recalibration measures the state the probe has just found: one pass over the sizes. (The calibration at the start
// keeps each size's fastest of three passes, the machine's usual fast state; here that would measure the fast state
// again whenever the machine visits it during the sweep, and leave the slow one unpriced.)
constexpr int kRecalibrationPasses = 1;

// --recalibrate (collective): when the probe finds the machine outside every state measured so far, measures another
// profile (as --calibrate did at the start, in one pass) and adds its state. A failed calibration ends the
// recalibrations and the run goes on with the states it has.
void MaybeRecalibrate(BenchContext& ctx, const Case& c, const Implementation& impl, int round, double probe_seconds) {
  if (ctx.model.recalibrations_left <= 0 || ctx.model.states.empty() || ctx.model.kcoll == nullptr) return;
  int go = 0;
  double ratio = 0;
  if (ctx.rank == 0) {
    const int nearest = NearestState(ctx, probe_seconds);
    ratio = RatioTo(ctx, nearest, probe_seconds);
    go = nearest >= 0 && !InCalibratedState(ratio) ? 1 : 0;
  }
  MPI_Bcast(&go, 1, MPI_INT, 0, ctx.comm);
  if (go == 0) return;
  --ctx.model.recalibrations_left;
  const bool injected = !Faults().calibration.empty();
  const std::string path =
      injected ? Faults().calibration : StatePath(ctx.options.calibrate_path, ctx.model.states.size() + 1);
  const std::string when = absl::StrCat("before ", Describe(c, impl), ctx.options.rounds > 1 ? " round " : "",
                                        ctx.options.rounds > 1 ? absl::StrCat(round + 1) : "");
  if (ctx.rank == 0) {
    std::fprintf(stderr, "[kcoll bench] --recalibrate: link probe %.2fx the nearest profile's %s: measuring %s\n",
                 ratio, when.c_str(), path.c_str());
  }
  std::string summary = absl::StrCat("injected profile ", path);
  calibration::CalibrationOptions sweep = CalibrationSweep(ctx.options);
  sweep.passes = kRecalibrationPasses;
  absl::Status measured = injected ? absl::OkStatus()
                                   : CalibrateIntoFile(ctx.comm, path, ctx.options.ranks_per_node,
                                                       *ParseExecBackend(ctx.options.exec), sweep, &summary);
  absl::StatusOr<ProfileChoice> profile = measured.ok() ? ChooseProfile(path) : absl::StatusOr<ProfileChoice>(measured);
  absl::StatusOr<models::ModelCheck> model =
      profile.ok() ? models::ModelCheck::Create(ModelTopology(ctx.model.kcoll->topology()), profile->profile,
                                                ModelCostOptions(ctx.model.kcoll->topology()))
                   : absl::StatusOr<models::ModelCheck>(profile.status());
  int failed = model.ok() ? 0 : 1;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, ctx.comm);
  if (failed != 0) {
    ctx.model.recalibrations_left = 0;
    if (!model.ok()) {
      std::fprintf(stderr, "[rank %d] --recalibrate: %s; no more recalibrations\n", ctx.rank,
                   std::string(model.status().message()).c_str());
    }
    return;
  }
  ModelState state{*std::move(model), ctx.model.probe->ProfileSeconds(profile->profile), path, when};
  ctx.model.states.push_back(std::move(state));
  if (ctx.rank == 0) std::fprintf(stderr, "[kcoll bench] %s\n", summary.c_str());
}

// --recalibrate, auto's rounds (collective): auto chooses with the profile of the state the probe before the round
// found (Communicator::SetProfile when it is not the one auto has), as an application that calibrates again would.
// A profile that fails to load leaves auto with the one it has.
void FollowState(BenchContext& ctx, const Implementation& impl, double probe_seconds) {
  if (!IsAuto(impl) || ctx.model.states.size() < 2 || ctx.model.kcoll == nullptr) return;
  int state = ctx.rank == 0 ? NearestState(ctx, probe_seconds) : -1;
  MPI_Bcast(&state, 1, MPI_INT, 0, ctx.comm);
  if (state < 0 || state == ctx.model.auto_state) return;
  const absl::Status set = ctx.model.kcoll->SetProfile(ctx.model.states[state].profile_path);
  if (set.ok()) {
    ctx.model.auto_state = state;
    if (ctx.rank == 0) {
      std::fprintf(stderr, "[kcoll bench] --recalibrate: auto now chooses with state %d's profile (%s)\n", state + 1,
                   ctx.model.states[state].profile_path.c_str());
    }
  } else {
    std::fprintf(stderr, "[rank %d] --recalibrate: auto keeps state %d's profile: %s\n", ctx.rank,
                 ctx.model.auto_state + 1, std::string(set.message()).c_str());
  }
}

void AppendRoundTimesUs(const PooledRounds& pool, size_t r, std::vector<double>* times_us) {
  const size_t begin = r == 0 ? 0 : pool.round_ends[r - 1];
  for (size_t i = begin; i < pool.round_ends[r]; ++i) times_us->push_back(pool.combined_s[i] * 1e6);
}

// --rounds with the link probe: the iterations of the rounds whose probe found the machine in the profile's state.
StateRounds CalibratedStateRounds(const PooledRounds& pool) {
  StateRounds s;
  std::vector<double> times_us;
  for (size_t r = 0; r < pool.round_ends.size(); ++r) {
    if (!InCalibratedState(pool.link_ratios[r])) continue;
    ++s.rounds;
    AppendRoundTimesUs(pool, r, &times_us);
  }
  if (!times_us.empty()) s.p50_us = ComputeIterationStats(times_us).p50_us;
  return s;
}

// --rounds: each round's median iteration, in microseconds.
std::vector<double> RoundMediansUs(const PooledRounds& pool) {
  std::vector<double> medians;
  for (size_t r = 0; r < pool.round_ends.size(); ++r) {
    std::vector<double> times_us;
    AppendRoundTimesUs(pool, r, &times_us);
    medians.push_back(times_us.empty() ? 0 : ComputeIterationStats(times_us).p50_us);
  }
  return medians;
}

// The algorithm auto ran in most of the rounds (the latest of those that ran as many).
Algorithm MostRounds(const std::vector<Algorithm>& algorithms) {
  Algorithm best = algorithms.back();
  std::ptrdiff_t best_count = 0;
  for (auto it = algorithms.rbegin(); it != algorithms.rend(); ++it) {
    const std::ptrdiff_t count = std::count(algorithms.begin(), algorithms.end(), *it);
    if (count > best_count) {
      best = *it;
      best_count = count;
    }
  }
  return best;
}

// --model: the model's time for a kcoll case and its error against the median of the pooled iterations (the
// model stands for a typical call, as the calibration's medians do; the mean also carries the iterations during
// which the scheduler took a rank's core away); the algorithm it priced (for auto, what it ran: in most rounds, when
// --recalibrate made it change between rounds). Each round is priced with the profile of the state its probe found
// (one state unless --recalibrate measured more) and the algorithm it ran; the case's model time is the median over
// its rounds. Nothing for peers, unmodeled algorithms or without --model.
void AddModel(const BenchContext& ctx, const Case& c, const Implementation& impl, const PooledRounds& pool,
              Measurement& m, std::optional<Algorithm>* priced) {
  if (ctx.model.states.empty() || impl.kind() != "kcoll" || ctx.model.kcoll == nullptr || pool.combined_s.empty())
    return;
  const double median = ComputeIterationStats(pool.combined_s).p50_us;  // the statistics are unit-free
  if (!(median > 0)) return;
  absl::StatusOr<Algorithm> algorithm = ParseAlgorithm(impl.name());
  if (!algorithm.ok()) return;
  std::vector<Algorithm> ran(pool.states.size(), *algorithm);
  if (*algorithm == Algorithm::kAuto) {
    if (pool.algorithms.size() != pool.states.size()) return;
    ran = pool.algorithms;
  }
  // Per round (every round records its state and link ratio), its state's prediction.
  std::vector<double> predicted;
  for (size_t r = 0; r < pool.states.size(); ++r) {
    absl::StatusOr<models::RowPrediction> p = ctx.model.states[pool.states[r]].model.Predict(
        {c.collective, ran[r], static_cast<double>(c.layout.bytes), median});
    if (!p.ok() || !p->modeled) return;
    predicted.push_back(p->predicted_seconds);
  }
  if (predicted.empty()) return;
  const double model_s = models::Median(predicted);
  m.model_us = model_s * 1e6;
  m.model_error_pct = 100 * (model_s - median) / median;
  m.round_states = pool.states;
  if (*algorithm == Algorithm::kAuto) m.round_algorithms = ran;
  if (m.calibrated_rounds.has_value() && m.calibrated_rounds->p50_us > 0) {
    std::vector<double> in_state;
    for (size_t r = 0; r < predicted.size(); ++r) {
      if (InCalibratedState(pool.link_ratios[r])) in_state.push_back(predicted[r]);
    }
    const double measured_s = m.calibrated_rounds->p50_us * 1e-6;
    if (!in_state.empty())
      m.calibrated_rounds->model_error_pct = 100 * (models::Median(in_state) - measured_s) / measured_s;
  }
  *priced = MostRounds(ran);
}

}  // namespace

// A failed probe is said on stderr; the round then has no ratio.
double ProbeLinks(BenchContext& ctx) {
  if (!ctx.model.probe.has_value()) return 0;
  absl::StatusOr<double> seconds = ctx.model.probe->Seconds();
  if (seconds.ok()) {
    const double scale = Faults().probe_scale;  // as on a machine that changed state after its calibration
    return scale > 0 ? *seconds * scale : *seconds;
  }
  std::fprintf(stderr, "[rank %d] link probe: %s\n", ctx.rank, std::string(seconds.status().message()).c_str());
  return 0;
}

void BeforeRound(BenchContext& ctx, int index, int round) {
  const Case& c = ctx.cases[index];
  const Implementation& impl = *ctx.implementations[c.implementation];
  const double probe_before = ProbeBeforeRound(ctx, impl);
  MaybeRecalibrate(ctx, c, impl, round, probe_before);
  FollowState(ctx, impl, probe_before);
}

void AfterRound(BenchContext& ctx, int index, double link_before) {
  const Case& c = ctx.cases[index];
  const Implementation& impl = *ctx.implementations[c.implementation];
  PooledRounds& pool = ctx.pooled[index];
  const double link_after = ProbeLinks(ctx);
  // The round's state is the one the probe found before it; the ratio to it farther from 1 of before and after.
  const int machine_state = NearestState(ctx, link_before);
  const double ratio_before = RatioTo(ctx, machine_state, link_before);
  const double ratio_after = RatioTo(ctx, machine_state, link_after);
  double link_ratio = 0;
  if (ratio_before > 0 && ratio_after > 0) {
    link_ratio = std::abs(std::log(ratio_before)) >= std::abs(std::log(ratio_after)) ? ratio_before : ratio_after;
  }
  pool.link_ratios.push_back(link_ratio);
  pool.states.push_back(std::max(machine_state, 0));
  if (IsAuto(impl) && ctx.model.kcoll != nullptr) {
    absl::StatusOr<Algorithm> ran = ctx.model.kcoll->ResolveAlgorithm(c.collective, CallBytes(c), Algorithm::kAuto);
    if (ran.ok()) pool.algorithms.push_back(*ran);
  }
}

void AddRoundsAndModel(const BenchContext& ctx, int index, Measurement* m, std::optional<Algorithm>* priced) {
  const Case& c = ctx.cases[index];
  const PooledRounds& pool = ctx.pooled[index];
  std::vector<double> ratios;
  for (double r : pool.link_ratios) {
    if (r > 0) ratios.push_back(r);
  }
  if (!ratios.empty()) {  // the median round's
    std::nth_element(ratios.begin(), ratios.begin() + ratios.size() / 2, ratios.end());
    m->link_ratio = ratios[ratios.size() / 2];
  }
  if (ctx.options.rounds > 1 && !ratios.empty()) m->calibrated_rounds = CalibratedStateRounds(pool);
  if (ctx.options.rounds > 1) m->round_p50_us = RoundMediansUs(pool);
  AddModel(ctx, c, *ctx.implementations[c.implementation], pool, *m, priced);
}

}  // namespace bench
}  // namespace kcoll
