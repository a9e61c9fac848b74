#include "bench/bench_case.h"
#include "bench/injected_faults.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "bench/bandwidth.h"
#include "bench/calibrate_in_run.h"
#include "bench/exact_data.h"
#include "bench/timing.h"
#include "collectives/auto_choice.h"

namespace kcoll {
namespace bench {
namespace {

using Clock = std::chrono::steady_clock;

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

// 0: every rank succeeded; 1: some rank's call is Unimplemented; 2: some rank's call failed otherwise.
int AgreeStatus(const absl::Status& s, MPI_Comm comm) {
  int code = s.ok() ? 0 : (absl::IsUnimplemented(s) ? 1 : 2);
  MPI_Allreduce(MPI_IN_PLACE, &code, 1, MPI_INT, MPI_MAX, comm);
  return code;
}

std::string Describe(const Case& c, const Implementation& impl) {
  std::string s =
      absl::StrCat(CollectiveName(c.collective), " ", impl.name(), " ", NcclTypeName(c.type), " ", NcclOpName(c.op));
  if (c.root >= 0) absl::StrAppend(&s, " root ", c.root);
  absl::StrAppend(&s, " ", c.layout.bytes, " B ", c.in_place ? "in-place" : "out-of-place");
  return s;
}

// The call's count times its element size: the size auto chooses by.
size_t CallBytes(const Case& c) { return c.layout.count * DataTypeSize(c.type); }

// Pointers of the call, placed as nccl-tests places them (layout.h).
// The buffers a case runs on: registered ones for the rows that ask for them.
char* SendBase(BenchContext& ctx, const Case& c) {
  return ctx.implementations[c.implementation]->registered() ? ctx.registered_send : ctx.send_buffer.data();
}
char* RecvBase(BenchContext& ctx, const Case& c) {
  return ctx.implementations[c.implementation]->registered() ? ctx.registered_recv : ctx.recv_buffer.data();
}

Call MakeCall(BenchContext& ctx, const Case& c) {
  Call call;
  call.collective = c.collective;
  call.layout = c.layout;
  call.type = c.type;
  call.op = c.op;
  call.root = c.root < 0 ? 0 : c.root;
  call.in_place = c.in_place;
  const size_t elem = DataTypeSize(c.type);
  const size_t r = static_cast<size_t>(ctx.rank);
  char* send = SendBase(ctx, c);
  char* recv = RecvBase(ctx, c);
  if (c.in_place) {
    call.send = recv + c.layout.send_inplace_offset * r * elem;
    call.recv = recv + c.layout.recv_inplace_offset * r * elem;
  } else {
    call.send = send;
    call.recv = recv;
  }
  return call;
}

CheckSpec MakeSpec(const BenchContext& ctx, const Case& c) {
  CheckSpec spec;
  spec.collective = c.collective;
  spec.type = c.type;
  spec.op = c.op;
  spec.root = c.root < 0 ? 0 : c.root;
  spec.rank = ctx.rank;
  spec.nranks = ctx.nranks;
  spec.layout = c.layout;
  return spec;
}

// Poisons the result memory and writes this rank's inputs where the call reads them.
void PrepareData(BenchContext& ctx, const Case& c, const Call& call, const CheckSpec& spec) {
  const size_t elem = DataTypeSize(c.type);
  const size_t span = std::max(c.layout.send_count, c.layout.recv_count);
  FillPoison(RecvBase(ctx, c), (c.in_place ? span : c.layout.recv_count) * elem);
  FillInput(spec, const_cast<void*>(call.send), 0, c.layout.send_count);
}

// --touch_input: rewrites every cache line of the call's input with its own bytes, so what the peers read next are
// lines this rank has just modified, as when an application has just computed them. Without it, a peer that reads
// the input directly (shared memory) finds an unchanged copy in its own cache from the previous iteration.
void TouchInput(const Case& c, const Call& call) {
  volatile char* p = static_cast<volatile char*>(const_cast<void*>(call.send));
  const size_t bytes = c.layout.send_count * DataTypeSize(c.type);
  for (size_t i = 0; i < bytes; i += 64) p[i] = p[i];
}

// --model: the link probe's time on rank 0 (link_probe.h); 0 without a probe, on the other ranks, or when the probe
// failed (said on stderr: the round then has no ratio).
double ProbeLinks(BenchContext& ctx) {
  if (!ctx.probe.has_value()) return 0;
  absl::StatusOr<double> seconds = ctx.probe->Seconds();
  if (seconds.ok()) {
    const double scale = Faults().probe_scale;  // as on a machine that changed state after its calibration
    return scale > 0 ? *seconds * scale : *seconds;
  }
  std::fprintf(stderr, "[rank %d] link probe: %s\n", ctx.rank, std::string(seconds.status().message()).c_str());
  return 0;
}

// Rank 0: the state whose probe time is nearest (in ratio) to `probe_seconds`; -1 without a reading.
int NearestState(const BenchContext& ctx, double probe_seconds) {
  if (!(probe_seconds > 0)) return -1;
  int best = -1;
  double best_distance = 0;
  for (size_t i = 0; i < ctx.states.size(); ++i) {
    if (!(ctx.states[i].probe_seconds > 0)) continue;
    const double distance = std::abs(std::log(probe_seconds / ctx.states[i].probe_seconds));
    if (best < 0 || distance < best_distance) {
      best = static_cast<int>(i);
      best_distance = distance;
    }
  }
  return best;
}

double RatioTo(const BenchContext& ctx, int state, double probe_seconds) {
  return state < 0 || !(probe_seconds > 0) ? 0 : probe_seconds / ctx.states[state].probe_seconds;
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
  if (ctx.states.empty() || ctx.kcoll == nullptr) return 0;
  if (ctx.recalibrations_left <= 0 && !(IsAuto(impl) && ctx.states.size() > 1)) return 0;
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
  if (ctx.recalibrations_left <= 0 || ctx.states.empty() || ctx.kcoll == nullptr) return;
  int go = 0;
  double ratio = 0;
  if (ctx.rank == 0) {
    const int nearest = NearestState(ctx, probe_seconds);
    ratio = RatioTo(ctx, nearest, probe_seconds);
    go = nearest >= 0 && !InCalibratedState(ratio) ? 1 : 0;
  }
  MPI_Bcast(&go, 1, MPI_INT, 0, ctx.comm);
  if (go == 0) return;
  --ctx.recalibrations_left;
  const bool injected = !Faults().calibration.empty();
  const std::string path =
      injected ? Faults().calibration : StatePath(ctx.options.calibrate_path, ctx.states.size() + 1);
  const std::string when = absl::StrCat("before ", Describe(c, impl), ctx.options.rounds > 1 ? " round " : "",
                                        ctx.options.rounds > 1 ? absl::StrCat(round + 1) : "");
  if (ctx.rank == 0) {
    std::fprintf(stderr, "[kcoll bench] --recalibrate: link probe %.2fx the nearest profile's %s: measuring %s\n",
                 ratio, when.c_str(), path.c_str());
  }
  std::string summary = absl::StrCat("injected profile ", path);
  absl::Status measured = injected ? absl::OkStatus()
                              : CalibrateIntoFile(ctx.comm, path, ctx.options.ranks_per_node,
                                                  *ParseExecBackend(ctx.options.exec), &summary, kRecalibrationPasses);
  absl::StatusOr<ProfileChoice> profile = measured.ok() ? ChooseProfile(path) : absl::StatusOr<ProfileChoice>(measured);
  absl::StatusOr<models::ModelCheck> model =
      profile.ok()
          ? models::ModelCheck::Create(ModelTopology(ctx.kcoll->topology()), profile->profile, ModelCostOptions())
          : absl::StatusOr<models::ModelCheck>(profile.status());
  int failed = model.ok() ? 0 : 1;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, ctx.comm);
  if (failed != 0) {
    ctx.recalibrations_left = 0;
    if (!model.ok()) {
      std::fprintf(stderr, "[rank %d] --recalibrate: %s; no more recalibrations\n", ctx.rank,
                   std::string(model.status().message()).c_str());
    }
    return;
  }
  ModelState state{*std::move(model), ctx.probe->ProfileSeconds(profile->profile), path, when};
  ctx.states.push_back(std::move(state));
  if (ctx.rank == 0) std::fprintf(stderr, "[kcoll bench] %s\n", summary.c_str());
}

// --recalibrate, auto's rounds (collective): auto chooses with the profile of the state the probe before the round
// found (Communicator::SetProfile when it is not the one auto has), as an application that calibrates again would.
// A profile that fails to load leaves auto with the one it has.
void FollowState(BenchContext& ctx, const Implementation& impl, double probe_seconds) {
  if (!IsAuto(impl) || ctx.states.size() < 2 || ctx.kcoll == nullptr) return;
  int state = ctx.rank == 0 ? NearestState(ctx, probe_seconds) : -1;
  MPI_Bcast(&state, 1, MPI_INT, 0, ctx.comm);
  if (state < 0 || state == ctx.auto_state) return;
  const absl::Status set = ctx.kcoll->SetProfile(ctx.states[state].profile_path);
  if (set.ok()) {
    ctx.auto_state = state;
    if (ctx.rank == 0) {
      std::fprintf(stderr, "[kcoll bench] --recalibrate: auto now chooses with state %d's profile (%s)\n", state + 1,
                   ctx.states[state].profile_path.c_str());
    }
  } else {
    std::fprintf(stderr, "[rank %d] --recalibrate: auto keeps state %d's profile: %s\n", ctx.rank, ctx.auto_state + 1,
                 std::string(set.message()).c_str());
  }
}

void Beat(BenchContext& ctx) {
  if (ctx.watchdog) ctx.watchdog->Beat();
}

// Runs `call` `times` times; the first error, if any.
absl::Status RunTimes(BenchContext& ctx, Implementation& impl, const Call& call, int times) {
  absl::Status first;
  for (int i = 0; i < times; ++i) {
    absl::Status s = impl.Run(call);
    if (!s.ok() && first.ok()) first = s;
    Beat(ctx);
  }
  return first;
}

// An injected hang (the harness's tests of -T): rank 1 stops making progress, as a hung collective would.
void MaybeHang(const BenchContext& ctx) {
  if (ctx.rank != 1 || !Faults().hang) return;
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

std::tuple<int, size_t, int, int, int> RowKey(const Case& c) {
  return {static_cast<int>(c.collective), c.layout.bytes, static_cast<int>(c.type), c.op ? static_cast<int>(*c.op) : -1,
          c.root};
}

Row Identity(const BenchContext& ctx, const Case& c, const Implementation& impl) {
  Row row;
  row.collective = c.collective;
  row.implementation = impl.name();
  row.kind = impl.kind();
  row.bytes = c.layout.bytes;
  row.count = c.layout.count;
  row.type = c.type;
  row.op = c.op;
  row.root = c.root;
  row.ideal_busbw_gbps = ctx.ideal_busbw_gbps;
  return row;
}

// A failed call: every rank knows (agreed); rank 0 records it. Later rounds skip the case.
void RecordFailure(benchmark::State& state, BenchContext& ctx, PooledRounds& pool, const Case& c, Implementation& impl,
                   const absl::Status& mine, const char* phase) {
  ++ctx.failures;
  pool.failed = true;
  const std::string what = absl::StrCat("FAILED ", Describe(c, impl), " (", phase,
                                        "): ", mine.ok() ? "failed on another rank (see its stderr)" : mine.ToString());
  if (!mine.ok() && ctx.rank != 0) std::fprintf(stderr, "[rank %d] %s\n", ctx.rank, what.c_str());
  const std::string name = impl.name(), kind = impl.kind();
  SendToSink(ctx, static_cast<int>(&c - ctx.cases.data()), [=](ResultSink& sink) {
    sink.Failure(what);
    sink.Note(c.collective, name, kind, what);
  });
  state.SkipWithError(what.c_str());
}

// Appends round `r`'s iteration times (combined across ranks), in microseconds, to `times_us`.
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

// --model: the model's time for a kcoll case and its error against the median of the iterations' `seconds` (the
// model stands for a typical call, as the calibration's medians do; the mean also carries the iterations during
// which the scheduler took a rank's core away); the algorithm it priced (for auto, what it ran: in most rounds, when
// --recalibrate made it change between rounds). Each round is priced with the profile of the state its probe found
// (one state unless --recalibrate measured more) and the algorithm it ran; the case's model time is the median over
// its rounds. Nothing for peers, unmodeled algorithms or without --model.
void AddModel(const BenchContext& ctx, const Case& c, const Implementation& impl, const std::vector<double>& seconds,
              const PooledRounds& pool, Measurement& m, std::optional<Algorithm>* priced) {
  if (ctx.states.empty() || impl.kind() != "kcoll" || ctx.kcoll == nullptr || seconds.empty()) return;
  const double median = ComputeIterationStats(seconds).p50_us;  // the statistics are unit-free
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
    absl::StatusOr<models::RowPrediction> p =
        ctx.states[pool.states[r]].model.Predict({c.collective, ran[r], static_cast<double>(c.layout.bytes), median});
    if (!p.ok() || !p->modeled) return;
    predicted.push_back(p->predicted_seconds);
  }
  if (predicted.empty()) return;
  const double model_s = Median(predicted);
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
    if (!in_state.empty()) m.calibrated_rounds->model_error_pct = 100 * (Median(in_state) - measured_s) / measured_s;
  }
  *priced = MostRounds(ran);
}

}  // namespace

AlignedBuffer::~AlignedBuffer() { std::free(data_); }

absl::Status AlignedBuffer::Reserve(size_t bytes) {
  bytes = std::max<size_t>(bytes, 64);
  if (bytes <= capacity_) return absl::OkStatus();
  std::free(data_);
  data_ = nullptr;
  capacity_ = 0;
  const size_t rounded = (bytes + 63) / 64 * 64;
  data_ = static_cast<char*>(std::aligned_alloc(64, rounded));
  if (data_ == nullptr) return absl::ResourceExhaustedError(absl::StrCat("cannot allocate ", rounded, " bytes"));
  capacity_ = rounded;
  return absl::OkStatus();
}

Watchdog::Watchdog(int timeout_s, int rank) : timeout_s_(timeout_s), rank_(rank) {
  thread_ = std::thread([this] { Loop(); });
}

Watchdog::~Watchdog() {
  stop_ = true;
  thread_.join();
}

void Watchdog::Arm(const std::string& what) {
  Disarm();
  {
    std::lock_guard<std::mutex> lock(what_mutex_);
    what_ = what;
  }
  last_beat_ns_ = NowNs();
  armed_ = true;
}

void Watchdog::Beat() { last_beat_ns_ = NowNs(); }

void Watchdog::Disarm() { armed_ = false; }

void Watchdog::Loop() {
  while (!stop_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (armed_ && NowNs() - last_beat_ns_ > static_cast<int64_t>(timeout_s_) * 1000000000) {
      std::lock_guard<std::mutex> lock(what_mutex_);
      std::fprintf(stderr, "[rank %d] timeout (-T %d): no call finished for %d s in %s; aborting\n", rank_, timeout_s_,
                   timeout_s_, what_.c_str());
      std::fflush(stderr);
      _exit(124);
    }
  }
}

void SendToSink(BenchContext& ctx, int index, std::function<void(ResultSink&)> emit) {
  if (ctx.sink == nullptr) return;
  if (ctx.options.rounds > 1) {
    ctx.deferred.emplace_back(index, std::move(emit));
  } else {
    emit(*ctx.sink);
  }
}

void ReplayDeferred(BenchContext& ctx) {
  std::stable_sort(ctx.deferred.begin(), ctx.deferred.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  if (ctx.sink != nullptr) {
    for (auto& [index, emit] : ctx.deferred) emit(*ctx.sink);
  }
  ctx.deferred.clear();
}

std::vector<int> RoundOrder(const std::vector<Case>& cases, int rounds) {
  std::vector<int> order(cases.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  if (rounds <= 1) return order;
  auto key = [&](int i) {
    const Case& c = cases[i];
    return std::make_tuple(static_cast<int>(c.collective), c.layout.bytes, static_cast<int>(c.type),
                           c.op ? static_cast<int>(*c.op) : -1, c.root, c.in_place);
  };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return key(a) < key(b); });
  return order;
}

void BufferBytes(const BenchContext& ctx, size_t* send_bytes, size_t* recv_bytes) {
  *send_bytes = *recv_bytes = 0;
  for (const Case& c : ctx.cases) {
    const size_t elem = DataTypeSize(c.type);
    *send_bytes = std::max(*send_bytes, c.layout.send_count * elem);
    *recv_bytes = std::max(*recv_bytes, std::max(c.layout.send_count, c.layout.recv_count) * elem);
  }
}

namespace {

// Arms the watchdog for one case and disarms it on every way out of it.
class ArmedWatchdog {
 public:
  ArmedWatchdog(Watchdog* watchdog, const std::string& what) : watchdog_(watchdog) {
    if (watchdog_ != nullptr) watchdog_->Arm(what);
  }
  ~ArmedWatchdog() {
    if (watchdog_ != nullptr) watchdog_->Disarm();
  }
  ArmedWatchdog(const ArmedWatchdog&) = delete;
  ArmedWatchdog& operator=(const ArmedWatchdog&) = delete;

 private:
  Watchdog* watchdog_;
};

using SkipKey = std::tuple<size_t, int, int>;

SkipKey SkipKeyOf(const Case& c) {
  return std::make_tuple(c.implementation, static_cast<int>(c.type), c.op ? static_cast<int>(*c.op) : -1);
}

// The start of one round of nccl-tests' loop: fill the buffers, a first call (which synchronises the ranks and tells
// whether the implementation runs this case at all), then the warm-up. Returns false when the case stopped here
// (skipped or failed: `state` says why).
bool StartRound(benchmark::State& state, BenchContext& ctx, int index, const Call& call, const CheckSpec& spec) {
  const Case& c = ctx.cases[index];
  Implementation& impl = *ctx.implementations[c.implementation];
  const BenchOptions& o = ctx.options;
  PrepareData(ctx, c, call, spec);
  MaybeHang(ctx);
  const absl::Status first = RunTimes(ctx, impl, call, 1);
  const int code = AgreeStatus(first, ctx.comm);
  if (code == 1) {
    const std::string why =
        absl::StrCat("skipped (not implemented): ", first.ok() ? "on another rank" : std::string(first.message()));
    ctx.unimplemented[SkipKeyOf(c)] = why;
    const std::string name = impl.name(), kind = impl.kind();
    SendToSink(ctx, index, [=](ResultSink& sink) { sink.Note(c.collective, name, kind, why); });
    state.SkipWithError(why.c_str());
    return false;
  }
  if (code == 2) {
    RecordFailure(state, ctx, ctx.pooled[index], c, impl, first, "first call");
    return false;
  }
  absl::Status warm;
  for (int i = 0; i < o.warmup_iters && warm.ok(); ++i) warm = RunTimes(ctx, impl, call, o.agg_iters);
  if (AgreeStatus(warm, ctx.comm) != 0) {
    RecordFailure(state, ctx, ctx.pooled[index], c, impl, warm, "warm-up");
    return false;
  }
  return true;
}

// The timed iterations of one round, each timed as the ranks agree (--time_across); with --touch_input each first
// rewrites the input. Returns false when an iteration failed (`state` says why).
bool TimeIterations(benchmark::State& state, BenchContext& ctx, int index, const Call& call,
                    std::vector<double>* mine, std::vector<double>* combined) {
  const Case& c = ctx.cases[index];
  Implementation& impl = *ctx.implementations[c.implementation];
  const BenchOptions& o = ctx.options;
  MPI_Barrier(ctx.comm);
  mine->reserve(o.iters);
  combined->reserve(o.iters);
  for (auto _ : state) {
    if (o.touch_input) TouchInput(c, call);
    const auto t0 = Clock::now();
    const absl::Status s = RunTimes(ctx, impl, call, o.agg_iters);
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    const AgreedIteration agreed = AgreeIteration(seconds, !s.ok(), o.time_across, ctx.comm);
    if (agreed.any_failed) {
      RecordFailure(state, ctx, ctx.pooled[index], c, impl, s, "timed iteration");
      return false;
    }
    state.SetIterationTime(agreed.seconds / o.agg_iters);
    mine->push_back(seconds / o.agg_iters);
    combined->push_back(agreed.seconds / o.agg_iters);
  }
  return true;
}

// --model: the link probe after the round, against the state the probe before it found; kept per round.
void RecordRoundState(BenchContext& ctx, int index, double link_before) {
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
  if (IsAuto(impl) && ctx.kcoll != nullptr) {
    absl::StatusOr<Algorithm> ran = ctx.kcoll->ResolveAlgorithm(c.collective, CallBytes(c), Algorithm::kAuto);
    if (ran.ok()) pool.algorithms.push_back(*ran);
  }
}

// The row's timing over every round: mean time and bandwidths of the pooled iterations, and --model's round data.
Measurement PooledMeasurement(const BenchContext& ctx, const Case& c, const PooledRounds& pool) {
  Measurement m;
  std::vector<double> ratios;
  for (double r : pool.link_ratios) {
    if (r > 0) ratios.push_back(r);
  }
  if (!ratios.empty()) {  // the median round's
    std::nth_element(ratios.begin(), ratios.begin() + ratios.size() / 2, ratios.end());
    m.link_ratio = ratios[ratios.size() / 2];
  }
  const int rounds = ctx.options.rounds;
  if (rounds > 1 && !ratios.empty()) m.calibrated_rounds = CalibratedStateRounds(pool);
  if (rounds > 1) m.round_p50_us = RoundMediansUs(pool);
  m.iterations = static_cast<int>(pool.combined_s.size());
  double sum = 0;
  for (double t : pool.combined_s) sum += t;
  const double mean_s = pool.combined_s.empty() ? 0 : sum / pool.combined_s.size();
  m.time_us = mean_s * 1e6;
  m.algbw_gbps = AlgBwGBps(static_cast<double>(c.layout.bytes), mean_s);
  m.busbw_gbps = BusBwGBps(c.collective, static_cast<double>(c.layout.bytes), mean_s, ctx.nranks);
  return m;
}

// -c: `o.check` more calls on fresh data, each result compared element by element with its exact value. Returns
// false when a call failed (`state` says why).
bool CheckResults(benchmark::State& state, BenchContext& ctx, int index, const Call& call, const CheckSpec& spec,
                  Measurement* m) {
  const Case& c = ctx.cases[index];
  Implementation& impl = *ctx.implementations[c.implementation];
  int64_t wrong = 0;
  for (int k = 0; k < ctx.options.check; ++k) {
    PrepareData(ctx, c, call, spec);
    const absl::Status s = RunTimes(ctx, impl, call, 1);
    if (AgreeStatus(s, ctx.comm) != 0) {
      RecordFailure(state, ctx, ctx.pooled[index], c, impl, s, "checked call");
      return false;
    }
    int64_t local = CountWrong(spec, impl.Result(call));
    if (ctx.rank == 0 && Faults().wrong) ++local;  // an injected wrong element (the harness's tests of -c)
    MPI_Allreduce(MPI_IN_PLACE, &local, 1, MPI_INT64_T, MPI_SUM, ctx.comm);
    wrong += local;
    if (local != 0) break;
  }
  m->wrong = wrong;
  ctx.wrong += wrong;
  return true;
}

// -I: every iteration's time, combined and per rank (gathered on rank 0).
void AddIterationTimes(const BenchContext& ctx, const std::vector<double>& combined, const std::vector<double>& mine,
                       Measurement* m) {
  m->times_us = combined;
  for (double& t : m->times_us) t *= 1e6;
  m->stats = ComputeIterationStats(m->times_us);
  std::vector<double> all(ctx.rank == 0 ? mine.size() * ctx.nranks : 0);
  MPI_Gather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(), static_cast<int>(mine.size()),
             MPI_DOUBLE, 0, ctx.comm);
  if (ctx.rank != 0) return;
  m->per_rank_times_us.resize(ctx.nranks);
  for (int r = 0; r < ctx.nranks; ++r) {
    m->per_rank_times_us[r].assign(all.begin() + r * mine.size(), all.begin() + (r + 1) * mine.size());
    for (double& t : m->per_rank_times_us[r]) t *= 1e6;
  }
}

// Google Benchmark's counters and the row for the table (every rank computes the same values; rank 0 reports).
void ReportRow(benchmark::State& state, BenchContext& ctx, int index, const Measurement& m,
               std::optional<Algorithm> priced) {
  const Case& c = ctx.cases[index];
  const Implementation& impl = *ctx.implementations[c.implementation];
  state.counters["bytes"] = static_cast<double>(c.layout.bytes);
  state.counters["time_us"] = m.time_us;
  state.counters["algbw_GBps"] = m.algbw_gbps;
  state.counters["busbw_GBps"] = m.busbw_gbps;
  if (m.wrong.has_value()) state.counters["wrong"] = static_cast<double>(*m.wrong);
  if (ctx.ideal_busbw_gbps.has_value() && *ctx.ideal_busbw_gbps > 0) {
    state.counters["ideal_GBps"] = *ctx.ideal_busbw_gbps;
    state.counters["eff_pct"] = 100.0 * m.busbw_gbps / *ctx.ideal_busbw_gbps;
  }
  if (impl.kind() == "mpi" && !c.in_place) ctx.mpi_busbw[RowKey(c)] = m.busbw_gbps;
  if (impl.kind() == "kcoll" && !c.in_place) {
    auto it = ctx.mpi_busbw.find(RowKey(c));
    if (it != ctx.mpi_busbw.end() && it->second > 0) state.counters["vs_mpi"] = m.busbw_gbps / it->second;
  }

  ++ctx.cases_done;
  if (ctx.sink == nullptr) return;
  Row identity = Identity(ctx, c, impl);
  identity.model_algorithm = priced;
  const bool in_place = c.in_place;
  SendToSink(ctx, index, [=](ResultSink& sink) { sink.Record(identity, in_place, m); });
  if (!ctx.progress) return;
  const double elapsed = std::chrono::duration<double>(Clock::now() - ctx.start).count();
  std::fprintf(stderr, "[bench %d/%zu %.1fs] %s: %.2f us, busbw %.3f GB/s%s\n", index + 1, ctx.cases.size(), elapsed,
               Describe(c, impl).c_str(), m.time_us, m.busbw_gbps,
               m.wrong.has_value() && *m.wrong > 0 ? absl::StrCat(", ", *m.wrong, " WRONG").c_str() : "");
}

}  // namespace

// One round of one case; after its last round, the row of every round's iterations. Around the round, --model's
// link probes and --recalibrate's state changes.
void RunCase(benchmark::State& state, BenchContext& ctx, int index, int round) {
  const Case& c = ctx.cases[index];
  Implementation& impl = *ctx.implementations[c.implementation];
  const BenchOptions& o = ctx.options;
  PooledRounds& pool = ctx.pooled[index];
  if (pool.failed) {
    state.SkipWithError("failed in an earlier round");
    return;
  }
  if (auto it = ctx.unimplemented.find(SkipKeyOf(c)); it != ctx.unimplemented.end()) {
    state.SkipWithError(it->second.c_str());
    return;
  }
  const double probe_before = ProbeBeforeRound(ctx, impl);
  MaybeRecalibrate(ctx, c, impl, round, probe_before);
  FollowState(ctx, impl, probe_before);
  const ArmedWatchdog armed(ctx.watchdog.get(), Describe(c, impl));

  const Call call = MakeCall(ctx, c);
  const CheckSpec spec = MakeSpec(ctx, c);
  if (!StartRound(state, ctx, index, call, spec)) return;
  const double link_before = ProbeLinks(ctx);
  std::vector<double> mine, combined;
  if (!TimeIterations(state, ctx, index, call, &mine, &combined)) return;
  RecordRoundState(ctx, index, link_before);
  pool.combined_s.insert(pool.combined_s.end(), combined.begin(), combined.end());
  pool.round_ends.push_back(pool.combined_s.size());
  pool.mine_s.insert(pool.mine_s.end(), mine.begin(), mine.end());
  if (round + 1 < o.rounds) {
    if (ctx.progress) {
      const double elapsed = std::chrono::duration<double>(Clock::now() - ctx.start).count();
      std::fprintf(stderr, "[bench round %d/%d, %d/%zu %.1fs] %s\n", round + 1, o.rounds, index + 1, ctx.cases.size(),
                   elapsed, Describe(c, impl).c_str());
    }
    return;
  }

  Measurement m = PooledMeasurement(ctx, c, pool);
  std::optional<Algorithm> priced;
  AddModel(ctx, c, impl, pool.combined_s, pool, m, &priced);
  if (o.check > 0 && !CheckResults(state, ctx, index, call, spec, &m)) return;
  if (o.per_iter_timing && !pool.combined_s.empty()) AddIterationTimes(ctx, pool.combined_s, pool.mine_s, &m);
  ReportRow(state, ctx, index, m, priced);
}

}  // namespace bench
}  // namespace kcoll
