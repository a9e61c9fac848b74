#include "bench/driver/bench_case.h"

#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/data/device_memory.h"
#include "bench/data/exact_data.h"
#include "bench/data/rounding_data.h"
#include "bench/driver/aligned_start.h"
#include "bench/driver/injected_faults.h"
#include "bench/driver/model_rounds.h"
#include "bench/driver/timing.h"
#include "bench/model/bandwidth.h"

namespace kcoll {
namespace bench {
namespace {

using Clock = std::chrono::steady_clock;

// --nonblocking: the computation each timed iteration overlaps with its call, and its time alone.
struct OverlapPlan {
  int64_t steps = 0;
  double compute_s = 0;
};

// 0: every rank succeeded; 1: some rank's call is Unimplemented; 2: some rank's call failed otherwise.
int AgreeStatus(const absl::Status& s, MPI_Comm comm) {
  int code = s.ok() ? 0 : (absl::IsUnimplemented(s) ? 1 : 2);
  MPI_Allreduce(MPI_IN_PLACE, &code, 1, MPI_INT, MPI_MAX, comm);
  return code;
}

// Pointers of the call, placed as nccl-tests places them (layout.h).
// The buffers a case runs on: registered ones for the rows that ask for them (device memory with --exec cuda, where
// Communicator::Allocate returns it), device ones with --exec cuda, host ones otherwise.
char* SendBase(BenchContext& ctx, const Case& c) {
  if (ctx.implementations[c.implementation]->registered()) return ctx.buffers.registered_send;
  return ctx.buffers.device ? ctx.buffers.device_send : ctx.buffers.send_buffer.data();
}
char* RecvBase(BenchContext& ctx, const Case& c) {
  if (ctx.implementations[c.implementation]->registered()) return ctx.buffers.registered_recv;
  return ctx.buffers.device ? ctx.buffers.device_recv : ctx.buffers.recv_buffer.data();
}

// The host buffer that mirrors device pointer `p` (--exec cuda), at the same offset; `p` itself on host runs.
const char* HostMirror(BenchContext& ctx, const void* p) {
  const char* at = static_cast<const char*>(p);
  if (!ctx.buffers.device) return at;
  Buffers& b = ctx.buffers;
  if (at >= b.device_recv && at < b.device_recv + b.device_bytes_recv) {
    return b.recv_buffer.data() + (at - b.device_recv);
  }
  if (b.registered_recv != nullptr && at >= b.registered_recv && at < b.registered_recv + b.registered_bytes_recv) {
    return b.recv_buffer.data() + (at - b.registered_recv);
  }
  if (b.registered_send != nullptr && at >= b.registered_send && at < b.registered_send + b.registered_bytes_send) {
    return b.send_buffer.data() + (at - b.registered_send);
  }
  return b.send_buffer.data() + (at - b.device_send);
}

// Bytes of the send and receive buffers a case uses (in place: the receive buffer holds both).
size_t SendSpan(const Case& c) { return c.in_place ? 0 : c.layout.send_count * DataTypeSize(c.type); }
size_t RecvSpan(const Case& c) {
  return (c.in_place ? std::max(c.layout.send_count, c.layout.recv_count) : c.layout.recv_count) * DataTypeSize(c.type);
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

// Poisons the result memory and writes this rank's inputs where the call reads them (with --exec cuda: into the host
// mirrors, then copied to the device buffers).
absl::Status PrepareData(BenchContext& ctx, const Case& c, const Call& call, const CheckSpec& spec) {
  FillPoison(const_cast<char*>(HostMirror(ctx, RecvBase(ctx, c))), RecvSpan(c));
  FillInput(spec, const_cast<char*>(HostMirror(ctx, call.send)), 0, c.layout.send_count);
  if (!ctx.buffers.device) return absl::OkStatus();
  absl::Status s = CopyToDevice(RecvBase(ctx, c), ctx.buffers.recv_buffer.data(), RecvSpan(c));
  if (s.ok() && SendSpan(c) > 0) s = CopyToDevice(SendBase(ctx, c), ctx.buffers.send_buffer.data(), SendSpan(c));
  return s;
}

// --exec cuda: the call's buffers copied back into their host mirrors, to be checked there.
absl::Status FetchResults(BenchContext& ctx, const Case& c) {
  if (!ctx.buffers.device) return absl::OkStatus();
  absl::Status s = CopyToHost(ctx.buffers.recv_buffer.data(), RecvBase(ctx, c), RecvSpan(c));
  if (s.ok() && SendSpan(c) > 0) s = CopyToHost(ctx.buffers.send_buffer.data(), SendBase(ctx, c), SendSpan(c));
  return s;
}

// --touch_input: rewrites every cache line of the call's input with its own bytes, so what the peers read next are
// lines this rank has just modified, as when an application has just computed them. Without it, a peer that reads
// the input directly (shared memory) finds an unchanged copy in its own cache from the previous iteration.
void TouchInput(const BenchContext& ctx, const Case& c, const Call& call) {
  if (ctx.buffers.device) return;  // device memory: no host cache to refresh
  volatile char* p = static_cast<volatile char*>(const_cast<void*>(call.send));
  const size_t bytes = c.layout.send_count * DataTypeSize(c.type);
  for (size_t i = 0; i < bytes; i += 64) p[i] = p[i];
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

// --nonblocking: the computation an iteration overlaps with the call, a dependent chain of multiply-adds (no memory
// traffic, so it competes with the call for the core only). Its result goes to a volatile, so the optimizer keeps it.
volatile double compute_result = 1.0;
void Compute(int64_t steps) {
  double x = compute_result;
  for (int64_t i = 0; i < steps; ++i) x = x * 0.999999 + 1e-7;
  compute_result = x;
}

double SecondsOf(const std::function<void()>& f) {
  const auto t0 = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The median over `times` runs of `f` on this rank, the largest across ranks.
double SlowestMedian(const std::function<void()>& f, int times, MPI_Comm comm) {
  std::vector<double> seconds;
  for (int i = 0; i < times; ++i) seconds.push_back(SecondsOf(f));
  std::sort(seconds.begin(), seconds.end());
  double median = seconds[seconds.size() / 2];
  MPI_Allreduce(MPI_IN_PLACE, &median, 1, MPI_DOUBLE, MPI_MAX, comm);
  return median;
}

// One nonblocking call: start, `steps` of computation, finish.
absl::Status Overlapped(Implementation& impl, const Call& call, int64_t steps) {
  absl::Status s = impl.Start(call);
  if (!s.ok()) return s;
  Compute(steps);
  return impl.Finish();
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

// The ideal busbw of the case's size: the bandwidth bound, or the latency floor where that takes longer.
std::optional<double> IdealBusBwOf(const BenchContext& ctx, const Case& c) {
  const double ideal = IdealBusBwAtSize(c.collective, static_cast<double>(c.layout.bytes), ctx.nranks,
                                        ctx.ideal_busbw_gbps.value_or(0), ctx.latency_floor_s);
  return ideal > 0 ? std::optional<double>(ideal) : std::nullopt;
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
  row.ideal_busbw_gbps = IdealBusBwOf(ctx, c);
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

}  // namespace

void SendToSink(BenchContext& ctx, int index, std::function<void(ResultSink&)> emit) {
  if (ctx.report.sink == nullptr) return;
  if (ctx.options.rounds > 1) {
    ctx.report.deferred.emplace_back(index, std::move(emit));
  } else {
    emit(*ctx.report.sink);
  }
}

void ReplayDeferred(BenchContext& ctx) {
  std::stable_sort(ctx.report.deferred.begin(), ctx.report.deferred.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  if (ctx.report.sink != nullptr) {
    for (auto& [index, emit] : ctx.report.deferred) emit(*ctx.report.sink);
  }
  ctx.report.deferred.clear();
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

// The key of Reporting::unimplemented: (implementation, type, op).
using SkipKey = decltype(Reporting::unimplemented)::key_type;

SkipKey SkipKeyOf(const Case& c) {
  return SkipKey(c.implementation, static_cast<int>(c.type), c.op ? static_cast<int>(*c.op) : -1);
}

// The outcome of a case's first call on this rank, agreed: true when every rank's succeeded; else the case is
// skipped (some rank's is Unimplemented: noted with `skip_why` and the reason, and later rounds skip it too) or failed
// (`phase` names the call), `state` saying which.
bool AcceptFirstCall(benchmark::State& state, BenchContext& ctx, int index, const absl::Status& first,
                     const char* skip_why, const char* phase) {
  const Case& c = ctx.cases[index];
  Implementation& impl = *ctx.implementations[c.implementation];
  const int code = AgreeStatus(first, ctx.comm);
  if (code == 1) {
    const std::string why = absl::StrCat(skip_why, first.ok() ? "on another rank" : std::string(first.message()));
    ctx.report.unimplemented[SkipKeyOf(c)] = why;
    const std::string name = impl.name(), kind = impl.kind();
    SendToSink(ctx, index, [=](ResultSink& sink) { sink.Note(c.collective, name, kind, why); });
    state.SkipWithError(why.c_str());
    return false;
  }
  if (code == 2) {
    RecordFailure(state, ctx, ctx.pooled[index], c, impl, first, phase);
    return false;
  }
  return true;
}

// The start of one round of nccl-tests' loop: fill the buffers, a first call (which synchronises the ranks and tells
// whether the implementation runs this case at all), then the warm-up. Returns false when the case stopped here
// (skipped or failed: `state` says why).
bool StartRound(benchmark::State& state, BenchContext& ctx, int index, const Call& call, const CheckSpec& spec) {
  const Case& c = ctx.cases[index];
  Implementation& impl = *ctx.implementations[c.implementation];
  const BenchOptions& o = ctx.options;
  const absl::Status prepared = PrepareData(ctx, c, call, spec);
  MaybeHang(ctx);
  const absl::Status first = prepared.ok() ? RunTimes(ctx, impl, call, 1) : prepared;
  if (!AcceptFirstCall(state, ctx, index, first, "skipped (not implemented): ", "first call")) return false;
  absl::Status warm;
  for (int i = 0; i < o.warmup_iters && warm.ok(); ++i) warm = RunTimes(ctx, impl, call, o.agg_iters);
  if (AgreeStatus(warm, ctx.comm) != 0) {
    RecordFailure(state, ctx, ctx.pooled[index], c, impl, warm, "warm-up");
    return false;
  }
  return true;
}

// --nonblocking: sizes the computation to P% of this round's blocking call (the median of 11, slowest rank) and
// times it alone; a first overlapped call tells whether the implementation has a nonblocking form. Returns false
// when the case stopped here (skipped or failed: `state` says why).
bool PlanOverlap(benchmark::State& state, BenchContext& ctx, int index, const Call& call, OverlapPlan* plan) {
  const Case& c = ctx.cases[index];
  Implementation& impl = *ctx.implementations[c.implementation];
  const absl::Status first = Overlapped(impl, call, 0);
  if (!AcceptFirstCall(state, ctx, index, first,
                       "skipped (--nonblocking: no nonblocking form): ", "first nonblocking call")) {
    return false;
  }
  absl::Status blocking;
  const double call_s = SlowestMedian([&] { blocking.Update(impl.Run(call)); }, 11, ctx.comm);
  if (AgreeStatus(blocking, ctx.comm) != 0) {
    RecordFailure(state, ctx, ctx.pooled[index], c, impl, blocking, "blocking calls that size --nonblocking");
    return false;
  }
  // Steps per second of the computation on this rank, from a run long enough to read the clock well.
  int64_t probe = 1 << 16;
  double probe_s = SecondsOf([&] { Compute(probe); });
  while (probe_s < 1e-3 && probe < (int64_t{1} << 40)) {
    probe *= 4;
    probe_s = SecondsOf([&] { Compute(probe); });
  }
  plan->steps = static_cast<int64_t>(call_s * ctx.options.nonblocking_pct / 100.0 * probe / probe_s);
  plan->compute_s = SlowestMedian([&] { Compute(plan->steps); }, 11, ctx.comm);
  return true;
}

// The timed iterations of one round, each timed as the ranks agree (--time_across); with --touch_input each first
// rewrites the input. Returns false when an iteration failed (`state` says why).
bool TimeIterations(benchmark::State& state, BenchContext& ctx, int index, const Call& call, const OverlapPlan* overlap,
                    std::vector<double>* mine, std::vector<double>* combined) {
  const Case& c = ctx.cases[index];
  Implementation& impl = *ctx.implementations[c.implementation];
  const BenchOptions& o = ctx.options;
  std::optional<AlignedStart> aligned;
  if (o.aligned_start) {
    absl::StatusOr<AlignedStart> made = AlignedStart::Create(ctx.comm, ctx.same_clock, ctx.start_spins);
    if (AgreeStatus(made.status(), ctx.comm) != 0) {
      RecordFailure(state, ctx, ctx.pooled[index], c, impl, made.status(), "aligned start");
      return false;
    }
    aligned = *std::move(made);
  }
  MPI_Barrier(ctx.comm);
  mine->reserve(o.iters);
  combined->reserve(o.iters);
  std::vector<int> late;  // --start aligned: per iteration, whether this rank began it after its instant
  for (auto _ : state) {
    if (o.touch_input) TouchInput(ctx, c, call);
    // Free: from this rank's own start. Aligned: from the agreed instant, on this rank's clock.
    const double t0 = aligned ? aligned->WaitForNextInstant() : SteadySeconds();
    if (aligned) late.push_back(aligned->last_was_late() ? 1 : 0);
    absl::Status s;
    if (overlap == nullptr) {
      s = RunTimes(ctx, impl, call, o.agg_iters);
    } else {
      for (int i = 0; i < o.agg_iters; ++i) s.Update(Overlapped(impl, call, overlap->steps));
      Beat(ctx);
    }
    double seconds = SteadySeconds() - t0;
    // --nonblocking: what the call left exposed, the iteration minus the computation alone.
    if (overlap != nullptr) seconds = std::max(0.0, seconds - o.agg_iters * overlap->compute_s);
    const AgreedIteration agreed = AgreeIteration(seconds, !s.ok(), o.time_across, ctx.comm);
    if (agreed.any_failed) {
      RecordFailure(state, ctx, ctx.pooled[index], c, impl, s, "timed iteration");
      return false;
    }
    state.SetIterationTime(agreed.seconds / o.agg_iters);
    mine->push_back(seconds / o.agg_iters);
    combined->push_back(agreed.seconds / o.agg_iters);
  }
  if (aligned) {
    MPI_Allreduce(MPI_IN_PLACE, late.data(), static_cast<int>(late.size()), MPI_INT, MPI_MAX, ctx.comm);
    ctx.pooled[index].late_starts += static_cast<int>(std::count(late.begin(), late.end(), 1));
  }
  return true;
}

// The row's timing over every round: mean time and bandwidths of the pooled iterations.
Measurement PooledMeasurement(const BenchContext& ctx, const Case& c, const PooledRounds& pool) {
  Measurement m;
  m.iterations = static_cast<int>(pool.combined_s.size());
  double sum = 0;
  for (double t : pool.combined_s) sum += t;
  const double mean_s = pool.combined_s.empty() ? 0 : sum / pool.combined_s.size();
  m.time_us = mean_s * 1e6;
  m.algbw_gbps = AlgBwGBps(static_cast<double>(c.layout.bytes), mean_s);
  m.busbw_gbps = BusBwGBps(c.collective, static_cast<double>(c.layout.bytes), mean_s, ctx.nranks);
  return m;
}

// -c: `o.check` more calls on fresh data (nonblocking ones with --nonblocking, overlapping their computation), each
// result compared element by element with its exact value. Returns false when a call failed (`state` says why).
bool CheckResults(benchmark::State& state, BenchContext& ctx, int index, const Call& call, const CheckSpec& spec,
                  const OverlapPlan* overlap, Measurement* m) {
  const Case& c = ctx.cases[index];
  Implementation& impl = *ctx.implementations[c.implementation];
  int64_t wrong = 0;
  for (int k = 0; k < ctx.options.check; ++k) {
    absl::Status s = PrepareData(ctx, c, call, spec);
    if (s.ok()) s = overlap != nullptr ? Overlapped(impl, call, overlap->steps) : RunTimes(ctx, impl, call, 1);
    if (s.ok()) s = FetchResults(ctx, c);
    if (AgreeStatus(s, ctx.comm) != 0) {
      RecordFailure(state, ctx, ctx.pooled[index], c, impl, s, "checked call");
      return false;
    }
    int64_t local = CountWrong(spec, HostMirror(ctx, impl.Result(call)));
    if (ctx.rank == 0 && Faults().wrong) ++local;  // an injected wrong element (the harness's tests of -c)
    MPI_Allreduce(MPI_IN_PLACE, &local, 1, MPI_INT64_T, MPI_SUM, ctx.comm);
    wrong += local;
    if (local != 0) break;
  }
  m->wrong = wrong;
  ctx.wrong += wrong;
  return true;
}

// --fingerprint: one more call on rounding-sensitive data (out of place rows of floating-point reductions), every
// rank's whole receive span hashed, the hashes combined in rank order on rank 0. Returns false when the call failed.
bool FingerprintResult(benchmark::State& state, BenchContext& ctx, int index, const Call& call, const CheckSpec& spec,
                       Measurement* m) {
  const Case& c = ctx.cases[index];
  if (c.in_place || !HasFingerprint(spec)) return true;
  Implementation& impl = *ctx.implementations[c.implementation];
  FillPoison(const_cast<char*>(HostMirror(ctx, RecvBase(ctx, c))), RecvSpan(c));
  FillRoundingSensitive(spec, const_cast<char*>(HostMirror(ctx, call.send)), c.layout.send_count);
  absl::Status s;
  if (ctx.buffers.device) {
    s = CopyToDevice(RecvBase(ctx, c), ctx.buffers.recv_buffer.data(), RecvSpan(c));
    if (s.ok()) s = CopyToDevice(SendBase(ctx, c), ctx.buffers.send_buffer.data(), SendSpan(c));
  }
  if (s.ok()) s = RunTimes(ctx, impl, call, 1);
  if (s.ok()) s = FetchResults(ctx, c);
  if (AgreeStatus(s, ctx.comm) != 0) {
    RecordFailure(state, ctx, ctx.pooled[index], c, impl, s, "fingerprinted call");
    return false;
  }
  uint64_t mine = Fingerprint(HostMirror(ctx, RecvBase(ctx, c)), RecvSpan(c));
  std::vector<uint64_t> all(ctx.rank == 0 ? ctx.nranks : 0);
  MPI_Gather(&mine, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, 0, ctx.comm);
  if (ctx.rank == 0) m->fingerprint = Fingerprint(all.data(), all.size() * sizeof(uint64_t));
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
  if (const std::optional<double> ideal = IdealBusBwOf(ctx, c); ideal.has_value()) {
    state.counters["ideal_GBps"] = *ideal;
    state.counters["eff_pct"] = 100.0 * m.busbw_gbps / *ideal;
  }
  if (impl.kind() == "mpi" && !c.in_place) ctx.report.mpi_busbw[RowKey(c)] = m.busbw_gbps;
  if (impl.kind() == "kcoll" && !c.in_place) {
    auto it = ctx.report.mpi_busbw.find(RowKey(c));
    if (it != ctx.report.mpi_busbw.end() && it->second > 0) state.counters["vs_mpi"] = m.busbw_gbps / it->second;
  }

  ++ctx.report.cases_done;
  if (ctx.report.sink == nullptr) return;
  Row identity = Identity(ctx, c, impl);
  identity.model_algorithm = priced;
  const bool in_place = c.in_place;
  SendToSink(ctx, index, [=](ResultSink& sink) { sink.Record(identity, in_place, m); });
  if (!ctx.report.progress) return;
  const double elapsed = std::chrono::duration<double>(Clock::now() - ctx.report.start).count();
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
  if (auto it = ctx.report.unimplemented.find(SkipKeyOf(c)); it != ctx.report.unimplemented.end()) {
    state.SkipWithError(it->second.c_str());
    return;
  }
  BeforeRound(ctx, index, round);
  const ArmedWatchdog armed(ctx.watchdog.get(), Describe(c, impl));

  const Call call = MakeCall(ctx, c);
  const CheckSpec spec = MakeSpec(ctx, c);
  if (!StartRound(state, ctx, index, call, spec)) return;
  OverlapPlan overlap;
  if (o.nonblocking_pct > 0 && !PlanOverlap(state, ctx, index, call, &overlap)) return;
  const double link_before = ProbeLinks(ctx);
  std::vector<double> mine, combined;
  if (!TimeIterations(state, ctx, index, call, o.nonblocking_pct > 0 ? &overlap : nullptr, &mine, &combined)) return;
  AfterRound(ctx, index, link_before);
  pool.combined_s.insert(pool.combined_s.end(), combined.begin(), combined.end());
  pool.round_ends.push_back(pool.combined_s.size());
  pool.mine_s.insert(pool.mine_s.end(), mine.begin(), mine.end());
  if (round + 1 < o.rounds) {
    if (ctx.report.progress) {
      const double elapsed = std::chrono::duration<double>(Clock::now() - ctx.report.start).count();
      std::fprintf(stderr, "[bench round %d/%d, %d/%zu %.1fs] %s\n", round + 1, o.rounds, index + 1, ctx.cases.size(),
                   elapsed, Describe(c, impl).c_str());
    }
    return;
  }

  Measurement m = PooledMeasurement(ctx, c, pool);
  if (o.aligned_start) m.late_starts = pool.late_starts;
  std::optional<Algorithm> priced;
  AddRoundsAndModel(ctx, index, &m, &priced);
  // A row that only moves the bytes (peer_copy) has no result to check: its #wrong reads N/A.
  const bool checked = ctx.implementations[c.implementation]->checked();
  if (checked && o.check > 0 &&
      !CheckResults(state, ctx, index, call, spec, o.nonblocking_pct > 0 ? &overlap : nullptr, &m)) {
    return;
  }
  if (checked && o.fingerprint && !FingerprintResult(state, ctx, index, call, spec, &m)) return;
  if (o.per_iter_timing && !pool.combined_s.empty()) AddIterationTimes(ctx, pool.combined_s, pool.mine_s, &m);
  ReportRow(state, ctx, index, m, priced);
}

}  // namespace bench
}  // namespace kcoll
