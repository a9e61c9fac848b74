#include "bench/calibrate.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "collectives/algorithms/registry.h"
#include "collectives/auto_choice.h"
#include "collectives/status_macros.h"
#include "models/predict_report.h"
#include "models/statistics.h"

namespace kcoll {
namespace bench {
namespace {

using models::Median;
using models::Percentile;

constexpr int kControlTag = 7301;
constexpr int kWarmups = 3;  // untimed calls per size; the fastest sets the repetitions

double Now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// The 1-minute load average, or -1 when unknown.
double LoadAverage() {
  double load = -1;
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &load) != 1) load = -1;
    std::fclose(f);
  }
  return load;
}

// Completes `request` polling every 200 us in between: a rank that only waits leaves the cores to the ranks that
// measure (MPI's own waits spin).
void SleepyWait(MPI_Request* request) {
  int done = 0;
  while (true) {
    MPI_Test(request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

void SleepyBarrier(MPI_Comm comm) {
  MPI_Request request;
  MPI_Ibarrier(comm, &request);
  SleepyWait(&request);
}

int RepsFor(double probe_seconds, const CalibrationOptions& options) {
  const double wanted = options.seconds_per_size / std::max(probe_seconds, 1e-9);
  return static_cast<int>(
      std::clamp(std::ceil(wanted), static_cast<double>(options.min_reps), static_cast<double>(options.max_reps)));
}

// The two buffers a rank alternates between: each round trip sends what the previous one received, so the bytes
// that go out were just written by this rank's core (by the receive's copy), as in a collective, where every round
// sends what the last one produced. A send buffer that is never written stays cached at the receiver after the first
// repetition and measures a transfer no collective sees: on some machines moving modified cache lines between cores
// runs at a third of that rate.
struct Buffers {
  explicit Buffers(size_t bytes) : a(bytes, 1), b(bytes, 0) {}
  char* send() { return flipped ? b.data() : a.data(); }
  char* recv() { return flipped ? a.data() : b.data(); }
  void Flip() { flipped = !flipped; }
  std::vector<char> a, b;
  bool flipped = false;
};

// One round trip of `bytes` from the initiator's side; the next one sends what this one received.
absl::StatusOr<double> RoundTrip(Transport& transport, int peer, Buffers& buffers, size_t bytes) {
  const double start = Now();
  KCOLL_RETURN_IF_ERROR(transport.Recv(peer, buffers.recv(), bytes, 0).status());
  KCOLL_RETURN_IF_ERROR(transport.Send(peer, buffers.send(), bytes, 0).status());
  KCOLL_RETURN_IF_ERROR(transport.WaitAll());
  const double seconds = Now() - start;
  buffers.Flip();
  return seconds;
}

// The other side of a round trip: receives the message and sends it back.
absl::Status Echo(Transport& transport, int peer, Buffers& buffers, size_t bytes) {
  KCOLL_RETURN_IF_ERROR(transport.Recv(peer, buffers.recv(), bytes, 0).status());
  KCOLL_RETURN_IF_ERROR(transport.WaitAll());
  KCOLL_RETURN_IF_ERROR(transport.Send(peer, buffers.recv(), bytes, 0).status());
  return transport.WaitAll();
}

// The series as (seconds, reps) pairs of doubles, for shipping to rank 0.
std::vector<double> Pack(const Series& series) {
  std::vector<double> out;
  for (size_t i = 0; i < series.samples.size(); ++i) {
    out.push_back(series.samples[i].seconds);
    out.push_back(series.reps[i]);
  }
  return out;
}

Series Unpack(const std::vector<double>& packed, const std::vector<double>& sizes) {
  Series series;
  for (size_t i = 0; i < sizes.size(); ++i) {
    series.samples.push_back({sizes[i], packed[2 * i]});
    series.reps.push_back(static_cast<int>(packed[2 * i + 1]));
  }
  return series;
}

// Per size, the fastest of several series of the same sizes, and the reps of that one.
Series FastestOf(const std::vector<Series>& all) {
  Series out;
  if (all.empty()) return out;
  out = all[0];
  for (const Series& s : all) {
    for (size_t i = 0; i < s.samples.size() && i < out.samples.size(); ++i) {
      if (s.samples[i].seconds < out.samples[i].seconds) {
        out.samples[i] = s.samples[i];
        out.reps[i] = s.reps[i];
      }
    }
  }
  return out;
}

}  // namespace

PassSpread SpreadOf(const std::vector<Series>& passes) {
  PassSpread spread;
  if (passes.size() < 2) return spread;
  for (size_t i = 0; i < passes[0].samples.size(); ++i) {
    double lo = passes[0].samples[i].seconds, hi = lo;
    for (const Series& s : passes) {
      if (i >= s.samples.size()) continue;
      lo = std::min(lo, s.samples[i].seconds);
      hi = std::max(hi, s.samples[i].seconds);
    }
    if (lo > 0 && (spread.bytes == 0 || hi / lo > spread.ratio)) spread = {hi / lo, passes[0].samples[i].bytes};
  }
  return spread;
}

namespace {

// Per size, the median seconds over several series of the same sizes and the fewest reps.
Series MedianOf(const std::vector<Series>& all) {
  Series out;
  if (all.empty()) return out;
  for (size_t i = 0; i < all[0].samples.size(); ++i) {
    std::vector<double> seconds;
    int reps = all[0].reps[i];
    for (const Series& s : all) {
      seconds.push_back(s.samples[i].seconds);
      reps = std::min(reps, s.reps[i]);
    }
    out.samples.push_back({all[0].samples[i].bytes, Median(seconds)});
    out.reps.push_back(reps);
  }
  return out;
}

absl::StatusOr<models::LinkFit> FitNamed(const Series& series, models::FitWeighting weighting, absl::string_view name) {
  absl::StatusOr<models::LinkFit> fit = models::FitLink(series.samples, weighting);
  if (!fit.ok()) return absl::InvalidArgumentError(absl::StrCat(name, ": ", fit.status().message()));
  return fit;
}

std::string PairsText(const std::vector<std::pair<int, int>>& pairs) {
  std::string out;
  for (const auto& [a, b] : pairs) absl::StrAppend(&out, out.empty() ? "" : ", ", a, "-", b);
  return out;
}

std::string StatName(double percentile) {
  return percentile == 50 ? "median" : absl::StrFormat("%gth-percentile", percentile);
}

// Collective over `comm`: the largest number of its ranks that share one host's memory.
int MostRanksOnAHost(MPI_Comm comm) {
  MPI_Comm host;
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host) != MPI_SUCCESS) return 0;
  int here = 0, most = 0;
  MPI_Comm_size(host, &here);
  MPI_Comm_free(&host);
  MPI_Allreduce(&here, &most, 1, MPI_INT, MPI_MAX, comm);
  return most;
}

bool Busy(const CalibrationResult& r) { return r.cores > 0 && std::max(r.load_before, r.load_after) > r.cores + 0.5; }

std::string Gbps(double bytes_per_s) { return absl::StrFormat("%.3g GB/s", bytes_per_s / 1e9); }

// A series as a table with the fit's prediction and error per size, then the fit.
std::string SeriesTable(const Series& series, bool link) {
  std::string out = absl::StrFormat("  %12s %7s %12s %11s %12s %8s\n", "bytes", "reps", link ? "one-way" : "time",
                                    "GB/s", "fit", "error");
  for (size_t i = 0; i < series.samples.size(); ++i) {
    const models::Sample& s = series.samples[i];
    const double fitted = series.fit.link.Seconds(s.bytes);
    const double error = s.seconds > 0 ? 100.0 * (fitted - s.seconds) / s.seconds : 0;
    absl::StrAppend(&out,
                    absl::StrFormat("  %12.0f %7d %12s %11.3f %12s %+7.1f%%\n", s.bytes, series.reps[i],
                                    FormatSeconds(s.seconds), s.seconds > 0 ? s.bytes / s.seconds / 1e9 : 0.0,
                                    FormatSeconds(fitted), error));
  }
  return out;
}

// A series of the collective step beside the same sizes measured alone (ping-pong, or the reduction sweep, read
// between its sizes as the model reads a curve); `-` outside the sizes measured alone.
std::string StepTable(const Series& step, const Series& alone, bool proportional, absl::string_view what,
                      absl::string_view rate, absl::string_view alone_name) {
  models::MeasuredCurve reference;
  reference.proportional = proportional;
  for (const models::Sample& s : alone.samples) reference.points.push_back({s.bytes, s.seconds});
  std::string out = absl::StrFormat("  %12s %7s %12s %13s %12s\n", "bytes", "reps", what, rate, alone_name);
  for (size_t i = 0; i < step.samples.size(); ++i) {
    const models::Sample& s = step.samples[i];
    const bool inside = !reference.empty() && s.bytes >= reference.points.front().bytes &&
                        s.bytes <= reference.points.back().bytes && s.seconds > 0;
    absl::StrAppend(&out,
                    absl::StrFormat("  %12.0f %7d %12s %13.3f %12s\n", s.bytes, step.reps[i],
                                    FormatSeconds(s.seconds), s.seconds > 0 ? s.bytes / s.seconds / 1e9 : 0.0,
                                    inside ? absl::StrFormat("%.2fx", s.seconds / reference.Seconds(s.bytes)) : "-"));
  }
  return out;
}

std::string FitLine(const models::LinkFit& fit, const std::string& kind, absl::string_view alpha_name,
                    absl::string_view beta_name) {
  return absl::StrFormat("  %s: %s = %s, %s = %.4g s/B (%s), R^2 = %.6f%s\n", kind, alpha_name,
                         FormatSeconds(fit.link.alpha_s), beta_name, fit.link.beta_s_per_byte,
                         Gbps(fit.link.BytesPerSecond()), fit.r_squared,
                         fit.intercept_clamped ? " (the free fit's intercept was negative: alpha fixed at 0)" : "");
}

models::FitWeighting Other(models::FitWeighting w) {
  return w == models::FitWeighting::kRelative ? models::FitWeighting::kAbsolute : models::FitWeighting::kRelative;
}

std::string WeightingText(models::FitWeighting w) {
  return w == models::FitWeighting::kRelative ? "fit on relative errors" : "fit on seconds (large sizes dominate)";
}

// The table, the saved fit and the other one for reference.
std::string SeriesReport(const Series& series, models::FitWeighting saved, bool link, absl::string_view alpha_name,
                         absl::string_view beta_name) {
  const std::string other = WeightingText(Other(saved));
  return absl::StrCat(
      SeriesTable(series, link), FitLine(series.fit, WeightingText(saved) + "; saved", alpha_name, beta_name),
      series.other_fit.ok() ? FitLine(*series.other_fit, other, alpha_name, beta_name)
                            : absl::StrCat("  ", other, ": none (", series.other_fit.status().message(), ")\n"));
}

}  // namespace

absl::Status ValidateCalibrationOptions(const CalibrationOptions& o) {
  auto bad = [](absl::string_view field, double value, absl::string_view want) {
    return absl::InvalidArgumentError(absl::StrCat(field, "=", value, ": ", want));
  };
  if (!std::isfinite(o.min_bytes) || o.min_bytes < 1) return bad("min_bytes", o.min_bytes, "must be >= 1");
  if (!std::isfinite(o.max_bytes) || o.max_bytes < o.min_bytes) {
    return bad("max_bytes", o.max_bytes, absl::StrCat("must be finite and >= min_bytes (", o.min_bytes, ")"));
  }
  if (!std::isfinite(o.min_local_bytes) || o.min_local_bytes < 4 || o.min_local_bytes > o.max_bytes) {
    return bad("min_local_bytes", o.min_local_bytes, "must be >= 4 (one float) and <= max_bytes");
  }
  if (!std::isfinite(o.step_factor) || o.step_factor <= 1) return bad("step_factor", o.step_factor, "must be > 1");
  if (o.min_reps < 1) return bad("min_reps", o.min_reps, "must be >= 1");
  if (o.passes < 1 || o.passes > 100) return bad("passes", o.passes, "must be in [1, 100]");
  if (o.max_reps < o.min_reps) return bad("max_reps", o.max_reps, "must be >= min_reps");
  if (!std::isfinite(o.percentile) || o.percentile <= 0 || o.percentile > 100) {
    return bad("percentile", o.percentile, "must be in (0, 100]");
  }
  if (!std::isfinite(o.seconds_per_size) || o.seconds_per_size < 0) {
    return bad("seconds_per_size", o.seconds_per_size, "must be finite and >= 0");
  }
  return absl::OkStatus();
}

std::vector<double> SweepSizes(double min_bytes, double max_bytes, double step_factor) {
  std::vector<double> sizes;
  for (double s = std::floor(min_bytes); s <= max_bytes; s = std::max(s + 1, std::floor(s * step_factor))) {
    sizes.push_back(s);
  }
  const double last = std::floor(max_bytes);
  if (sizes.empty() || sizes.back() != last) sizes.push_back(last);
  return sizes;
}

const char* LinkClassName(LinkClass link_class) {
  return link_class == LinkClass::kIntra ? "intra-node" : "inter-node";
}

std::vector<std::pair<int, int>> PairsOfClass(const Topology& topology, LinkClass link_class, bool all) {
  std::vector<std::pair<int, int>> pairs;
  for (int a = 0; a < topology.nranks; ++a) {
    for (int b = a + 1; b < topology.nranks; ++b) {
      if (topology.SameNode(a, b) != (link_class == LinkClass::kIntra)) continue;
      pairs.emplace_back(a, b);
      if (!all) return pairs;
    }
  }
  return pairs;
}

absl::StatusOr<Series> MeasurePingPong(Transport& transport, MPI_Comm control, int a, int b,
                                       const std::vector<double>& sizes, const CalibrationOptions& options) {
  int rank = 0;
  MPI_Comm_rank(control, &rank);
  Series series;
  if (rank == a || rank == b) {
    const size_t largest = static_cast<size_t>(*std::max_element(sizes.begin(), sizes.end()));
    Buffers buffers(largest);
    const int peer = rank == a ? b : a;
    for (double size : sizes) {
      const size_t bytes = static_cast<size_t>(size);
      int reps = 0;
      if (rank == a) {
        // The fastest of a few warm-up round trips sets the repetitions: one the scheduler interrupted would leave
        // too few.
        double probe = 0;
        for (int warmup = 0; warmup < kWarmups; ++warmup) {
          KCOLL_ASSIGN_OR_RETURN(double t, RoundTrip(transport, peer, buffers, bytes));
          probe = warmup == 0 ? t : std::min(probe, t);
        }
        reps = RepsFor(probe, options);
        MPI_Send(&reps, 1, MPI_INT, peer, kControlTag, control);
        std::vector<double> round_trips;
        round_trips.reserve(reps);
        for (int i = 0; i < reps; ++i) {
          KCOLL_ASSIGN_OR_RETURN(double t, RoundTrip(transport, peer, buffers, bytes));
          round_trips.push_back(t);
        }
        series.samples.push_back({size, Percentile(round_trips, options.percentile) / 2});
        series.reps.push_back(reps);
      } else {
        for (int warmup = 0; warmup < kWarmups; ++warmup) {
          KCOLL_RETURN_IF_ERROR(Echo(transport, peer, buffers, bytes));
        }
        MPI_Recv(&reps, 1, MPI_INT, peer, kControlTag, control, MPI_STATUS_IGNORE);
        for (int i = 0; i < reps; ++i) KCOLL_RETURN_IF_ERROR(Echo(transport, peer, buffers, bytes));
      }
    }
  }
  // The initiator's series goes to rank 0.
  if (a != 0) {
    std::vector<double> packed(2 * sizes.size());
    if (rank == a) {
      packed = Pack(series);
      MPI_Send(packed.data(), static_cast<int>(packed.size()), MPI_DOUBLE, 0, kControlTag, control);
      series = Series();
    } else if (rank == 0) {
      MPI_Request request;
      MPI_Irecv(packed.data(), static_cast<int>(packed.size()), MPI_DOUBLE, a, kControlTag, control, &request);
      SleepyWait(&request);
      series = Unpack(packed, sizes);
    }
  }
  SleepyBarrier(control);
  return series;
}

std::vector<std::pair<int, int>> ExchangePairs(const Topology& topology, LinkClass link_class) {
  std::vector<std::pair<int, int>> pairs;
  std::vector<bool> taken(topology.nranks, false);
  for (int a = 0; a < topology.nranks; ++a) {
    if (taken[a]) continue;
    for (int b = a + 1; b < topology.nranks; ++b) {
      if (taken[b] || topology.SameNode(a, b) != (link_class == LinkClass::kIntra)) continue;
      pairs.emplace_back(a, b);
      taken[a] = taken[b] = true;
      break;
    }
  }
  return pairs;
}

namespace {

// One rank's buffers for collective steps on messages of up to `bytes`: the step is a two-rank ring AllReduce of
// float32 on a buffer of 2 * bytes, its input, its result, and the scratch the first exchange lands in.
struct StepBuffers {
  explicit StepBuffers(size_t bytes)
      : in(2 * Floats(bytes), 1.0f), out(2 * Floats(bytes), 0.0f), scratch(Floats(bytes)) {}
  static size_t Floats(size_t bytes) { return (bytes + sizeof(float) - 1) / sizeof(float); }
  std::vector<float> in, out, scratch;
};

struct StepTimes {
  double exchange = 0;  // one exchange: the mean of the step's two
  double reduce = 0;
};

// Rewrites every cache line of the input (untimed), as the benchmarks' --touch_input does: the first exchange then
// sends bytes this rank's core has just written, as an application's freshly computed input.
void Touch(float* input, size_t floats) {
  volatile char* p = reinterpret_cast<volatile char*>(input);
  for (size_t i = 0; i < floats * sizeof(float); i += 64) p[i] = p[i];
}

// One step of the pair: exchange the halves of the input (each rank receives the half it owns into scratch),
// reduce its own half into the result, exchange the result halves. The rank whose `low` is true owns the first half.
absl::StatusOr<StepTimes> CollectiveStep(Transport& transport, Kernels& kernels, int peer, bool low, StepBuffers& b,
                                         size_t bytes) {
  const size_t half = StepBuffers::Floats(bytes);
  float* own_out = b.out.data() + (low ? 0 : half);
  float* other_out = b.out.data() + (low ? half : 0);
  const float* own_in = b.in.data() + (low ? 0 : half);
  const float* other_in = b.in.data() + (low ? half : 0);
  Touch(b.in.data(), 2 * half);
  const double start = Now();
  KCOLL_RETURN_IF_ERROR(transport.Recv(peer, b.scratch.data(), bytes, 0).status());
  KCOLL_RETURN_IF_ERROR(transport.Send(peer, other_in, bytes, 0).status());
  KCOLL_RETURN_IF_ERROR(transport.WaitAll());
  const double exchanged = Now();
  KCOLL_RETURN_IF_ERROR(
      kernels.Reduce(ReduceOp::kSum, DataType::kFloat32, own_out, own_in, b.scratch.data(), bytes / sizeof(float)));
  const double reduced = Now();
  KCOLL_RETURN_IF_ERROR(transport.Recv(peer, other_out, bytes, 0).status());
  KCOLL_RETURN_IF_ERROR(transport.Send(peer, own_out, bytes, 0).status());
  KCOLL_RETURN_IF_ERROR(transport.WaitAll());
  const double end = Now();
  return StepTimes{((exchanged - start) + (end - reduced)) / 2, reduced - exchanged};
}

}  // namespace

absl::StatusOr<StepSeries> MeasureStep(Transport& transport, Kernels& kernels, MPI_Comm control,
                                       const std::vector<std::pair<int, int>>& pairs, const std::vector<double>& sizes,
                                       const CalibrationOptions& options) {
  int rank = 0, nranks = 1;
  MPI_Comm_rank(control, &rank);
  MPI_Comm_size(control, &nranks);
  int peer = -1;
  bool low = false;
  for (const auto& [a, b] : pairs) {
    if (rank == a) {
      peer = b;
      low = true;
    }
    if (rank == b) peer = a;
  }
  const size_t largest = peer >= 0 ? static_cast<size_t>(*std::max_element(sizes.begin(), sizes.end())) : 0;
  StepBuffers buffers(largest);
  auto step = [&](size_t bytes) { return CollectiveStep(transport, kernels, peer, low, buffers, bytes); };
  StepSeries series;
  for (double size : sizes) {
    const size_t bytes = static_cast<size_t>(size);
    // Every pair warms up; the slowest pair's fastest warm-up sets everyone's repetitions.
    double probe = 0;
    if (peer >= 0) {
      for (int warmup = 0; warmup < kWarmups; ++warmup) {
        KCOLL_ASSIGN_OR_RETURN(StepTimes t, step(bytes));
        const double seconds = 2 * t.exchange + t.reduce;
        probe = warmup == 0 ? seconds : std::min(probe, seconds);
      }
    }
    double slowest = 0;
    MPI_Request request;
    MPI_Iallreduce(&probe, &slowest, 1, MPI_DOUBLE, MPI_MAX, control, &request);
    SleepyWait(&request);
    const int reps = RepsFor(slowest, options);
    double mine[2] = {-1, -1};  // this rank's percentile exchange and reduction; -1: not in a pair
    if (peer >= 0) {
      std::vector<double> exchanges, reductions;
      exchanges.reserve(reps);
      reductions.reserve(reps);
      for (int i = 0; i < reps; ++i) {
        KCOLL_ASSIGN_OR_RETURN(StepTimes t, step(bytes));
        exchanges.push_back(t.exchange);
        reductions.push_back(t.reduce);
      }
      mine[0] = Percentile(exchanges, options.percentile);
      mine[1] = Percentile(reductions, options.percentile);
    }
    std::vector<double> all(rank == 0 ? 2 * nranks : 0);
    MPI_Igather(mine, 2, MPI_DOUBLE, all.data(), 2, MPI_DOUBLE, 0, control, &request);
    SleepyWait(&request);
    if (rank == 0) {
      std::vector<double> exchanges, reductions;
      for (int r = 0; r < nranks; ++r) {
        if (all[2 * r] < 0) continue;
        exchanges.push_back(all[2 * r]);
        reductions.push_back(all[2 * r + 1]);
      }
      // The reduction covers whole floats: record the bytes it reduced.
      series.exchange.samples.push_back({size, Median(exchanges)});
      series.exchange.reps.push_back(reps);
      series.reduce.samples.push_back({static_cast<double>(bytes / sizeof(float) * sizeof(float)), Median(reductions)});
      series.reduce.reps.push_back(reps);
    }
  }
  return series;
}

absl::StatusOr<Series> MeasureLocal(Kernels& kernels, MPI_Comm control, LocalOperation operation,
                                    const std::vector<double>& sizes, const CalibrationOptions& options) {
  int rank = 0, nranks = 1;
  MPI_Comm_rank(control, &rank);
  MPI_Comm_size(control, &nranks);
  const size_t largest = static_cast<size_t>(*std::max_element(sizes.begin(), sizes.end()));
  const size_t floats = largest / sizeof(float) + 1;
  std::vector<float> a(floats, 1.0f), b(floats, 2.0f), dst(floats, 0.0f);
  auto run = [&](size_t bytes) -> absl::Status {
    switch (operation) {
      case LocalOperation::kReduce:
        return kernels.Reduce(ReduceOp::kSum, DataType::kFloat32, dst.data(), a.data(), b.data(),
                              bytes / sizeof(float));
      case LocalOperation::kCopyKernel:
        return kernels.Copy(dst.data(), a.data(), bytes);
      case LocalOperation::kMemcpy:
        std::memcpy(dst.data(), a.data(), bytes);
        return absl::OkStatus();
    }
    return absl::OkStatus();
  };
  std::vector<double> medians, reps_used;
  std::vector<double> recorded_sizes;
  for (double size : sizes) {
    // The reduction works on whole floats: record the bytes it actually reduced.
    const size_t bytes = operation == LocalOperation::kReduce
                             ? static_cast<size_t>(size) / sizeof(float) * sizeof(float)
                             : static_cast<size_t>(size);
    recorded_sizes.push_back(static_cast<double>(bytes));
    MPI_Barrier(control);
    KCOLL_RETURN_IF_ERROR(run(bytes));
    double probe = 0, start = 0;
    for (int warmup = 0; warmup < kWarmups; ++warmup) {
      start = Now();
      KCOLL_RETURN_IF_ERROR(run(bytes));
      probe = warmup == 0 ? Now() - start : std::min(probe, Now() - start);
    }
    MPI_Allreduce(MPI_IN_PLACE, &probe, 1, MPI_DOUBLE, MPI_MAX, control);
    const int reps = RepsFor(probe, options);
    std::vector<double> times;
    times.reserve(reps);
    for (int i = 0; i < reps; ++i) {
      start = Now();
      KCOLL_RETURN_IF_ERROR(run(bytes));
      times.push_back(Now() - start);
    }
    medians.push_back(Percentile(times, options.percentile));
    reps_used.push_back(reps);
  }
  // Per size, the median over ranks.
  std::vector<double> all(rank == 0 ? medians.size() * nranks : 0);
  MPI_Gather(medians.data(), static_cast<int>(medians.size()), MPI_DOUBLE, all.data(), static_cast<int>(medians.size()),
             MPI_DOUBLE, 0, control);
  Series series;
  if (rank != 0) return series;
  for (size_t i = 0; i < medians.size(); ++i) {
    std::vector<double> over_ranks;
    for (int r = 0; r < nranks; ++r) over_ranks.push_back(all[r * medians.size() + i]);
    series.samples.push_back({recorded_sizes[i], Median(over_ranks)});
    series.reps.push_back(static_cast<int>(reps_used[i]));
  }
  return series;
}

absl::StatusOr<CalibrationResult> Calibrate(Transport& transport, Kernels& kernels, MPI_Comm control,
                                            const Topology& topology, const CalibrationOptions& options) {
  KCOLL_RETURN_IF_ERROR(ValidateCalibrationOptions(options));
  if (topology.nranks < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("calibration needs at least 2 ranks to measure a link; got ", topology.nranks));
  }
  CalibrationResult result;
  result.nranks = topology.nranks;
  result.nodes = topology.nnodes;
  result.ranks_per_node = topology.uniform_ranks_per_node();
  result.emulated = topology.emulated;
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  result.host = host;
  result.date = absl::FormatTime("%Y-%m-%d %H:%M %Z", absl::Now(), absl::LocalTimeZone());
  result.cores = static_cast<int>(std::thread::hardware_concurrency());
  result.host_ranks = MostRanksOnAHost(control);
  result.load_before = LoadAverage();
  result.percentile = options.percentile;

  const std::vector<double> sizes = SweepSizes(options.min_bytes, options.max_bytes, options.step_factor);
  CalibrationOptions pass_options = options;
  pass_options.seconds_per_size = options.seconds_per_size / options.passes;
  for (LinkMeasurement* link : {&result.intra, &result.inter}) {
    link->link_class = link == &result.intra ? LinkClass::kIntra : LinkClass::kInter;
    link->pairs = PairsOfClass(topology, link->link_class, options.all_pairs);
    link->exchange_pairs = ExchangePairs(topology, link->link_class);
    std::vector<std::vector<Series>> ping_pongs(link->pairs.size());  // [pair][pass]
    std::vector<Series> exchanges, reductions;                        // [pass]
    for (int pass = 0; pass < options.passes; ++pass) {
      for (size_t p = 0; p < link->pairs.size(); ++p) {
        const auto& [a, b] = link->pairs[p];
        KCOLL_ASSIGN_OR_RETURN(Series s, MeasurePingPong(transport, control, a, b, sizes, pass_options));
        ping_pongs[p].push_back(std::move(s));
      }
      if (!link->exchange_pairs.empty()) {
        KCOLL_ASSIGN_OR_RETURN(StepSeries s,
                               MeasureStep(transport, kernels, control, link->exchange_pairs, sizes, pass_options));
        exchanges.push_back(std::move(s.exchange));
        reductions.push_back(std::move(s.reduce));
      }
    }
    std::vector<Series> per_pair;
    for (const std::vector<Series>& passes : ping_pongs) per_pair.push_back(FastestOf(passes));
    link->series = MedianOf(per_pair);
    if (!exchanges.empty()) {
      link->exchange = FastestOf(exchanges);
      link->step_spread = SpreadOf(exchanges);
      link->step_reduce = FastestOf(reductions);
    }
  }
  const std::vector<double> local_sizes = SweepSizes(options.min_local_bytes, options.max_bytes, options.step_factor);
  KCOLL_ASSIGN_OR_RETURN(result.reduce, MeasureLocal(kernels, control, LocalOperation::kReduce, local_sizes, options));
  KCOLL_ASSIGN_OR_RETURN(result.copy_kernel,
                         MeasureLocal(kernels, control, LocalOperation::kCopyKernel, local_sizes, options));
  KCOLL_ASSIGN_OR_RETURN(result.memcpy_series,
                         MeasureLocal(kernels, control, LocalOperation::kMemcpy, local_sizes, options));
  result.load_after = LoadAverage();
  return result;
}

absl::Status FitAll(CalibrationResult& result, models::FitWeighting weighting) {
  result.weighting = weighting;
  std::vector<std::pair<Series*, std::string>> series;
  for (LinkMeasurement* link : {&result.intra, &result.inter}) {
    if (link->pairs.empty()) continue;
    series.emplace_back(&link->series, absl::StrCat(LinkClassName(link->link_class), " ping-pong"));
  }
  series.emplace_back(&result.reduce, "reduction");
  series.emplace_back(&result.copy_kernel, "copy kernel");
  series.emplace_back(&result.memcpy_series, "memcpy");
  for (auto& [s, name] : series) {
    KCOLL_ASSIGN_OR_RETURN(s->fit, FitNamed(*s, weighting, name));
    s->other_fit = models::FitLink(s->samples, Other(weighting));
  }
  return absl::OkStatus();
}

namespace {

// The class whose collective steps price intra-node messages, and whose step reduction is the gamma curve: the
// intra-node class when it ran steps, else the inter-node one.
const LinkMeasurement& IntraStepSource(const CalibrationResult& result) {
  return !result.intra.exchange.samples.empty() ? result.intra : result.inter;
}

}  // namespace

absl::StatusOr<models::Profile> MakeProfile(const CalibrationResult& result) {
  const bool has_intra = !result.intra.pairs.empty(), has_inter = !result.inter.pairs.empty();
  if (!has_intra && !has_inter) {
    return absl::InvalidArgumentError("calibration result: neither intra-node nor inter-node pairs were measured");
  }
  models::Profile profile;
  profile.intra = has_intra ? result.intra.series.fit.link : result.inter.series.fit.link;
  profile.inter = has_inter ? result.inter.series.fit.link : result.intra.series.fit.link;
  // The measured curves price the messages and reductions (models/measured_curve.h); the fits summarise them.
  auto curve = [](const Series& series, bool proportional, double buffer_per_message) {
    models::MeasuredCurve c;
    c.proportional = proportional;
    c.buffer_per_message = buffer_per_message;
    for (const models::Sample& s : series.samples) {
      if (s.seconds > 0 && s.bytes > 0) c.points.push_back({s.bytes, s.seconds});
    }
    if (c.points.size() < 2) c.points.clear();
    return c;
  };
  const LinkMeasurement& intra_exchange = IntraStepSource(result);
  const LinkMeasurement& inter_exchange = !result.inter.exchange.samples.empty() ? result.inter : result.intra;
  profile.intra.curve = curve(intra_exchange.exchange, false, kStepBufferPerMessage);
  profile.inter.curve = curve(inter_exchange.exchange, false, kStepBufferPerMessage);
  profile.gamma_s_per_byte = result.reduce.fit.link.beta_s_per_byte;
  // The reduction inside the collective step when there is one (the intra-node class's first): it writes lines the
  // peer has just read, which the isolated sweep's does not.
  const Series& step_reduce = intra_exchange.step_reduce;
  profile.gamma_curve =
      step_reduce.samples.empty() ? curve(result.reduce, true, 1) : curve(step_reduce, true, kStepBufferPerMessage);
  // Every transfer here is a shared-memory copy made by a rank's own core (one node, or nodes emulated on one host):
  // a rank cannot reduce while it copies. Across real nodes the NIC moves the data.
  profile.transfers_use_cores = result.nodes == 1 || result.emulated;
  profile.memcpy_bytes_per_s = result.memcpy_series.fit.link.BytesPerSecond();
  // Every rank measures at once: with more ranks than cores on a host, each had that share of a core.
  if (result.cores > 0 && result.host_ranks > result.cores) {
    profile.rank_core_share = static_cast<double>(result.cores) / result.host_ranks;
  }
  std::string shape = result.ranks_per_node > 0
                          ? absl::StrCat(result.nodes, " node(s) x ", result.ranks_per_node, " ranks")
                          : absl::StrCat(result.nodes, " nodes of different sizes");
  profile.description =
      absl::StrCat("kcoll calibration on ", result.host, ", ", result.date, ": ", result.nranks, " ranks, ", shape,
                   result.emulated ? " (emulated nodes)" : "", "; Serial kernels, float32 sum; ",
                   StatName(result.percentile), " of the repetitions; least squares on ",
                   result.weighting == models::FitWeighting::kRelative ? "relative errors" : "seconds", ". intra: ");
  absl::StrAppend(&profile.description, has_intra ? absl::StrCat("ping-pong ", PairsText(result.intra.pairs))
                                                  : "not measured (one rank per node): the inter-node fit");
  absl::StrAppend(&profile.description, "; inter: ",
                  has_inter ? absl::StrCat("ping-pong ", PairsText(result.inter.pairs),
                                           result.emulated ? " (emulated nodes: shared memory, not a network)" : "")
                            : "not measured (one node): the intra-node fit");
  absl::StrAppend(&profile.description, absl::StrFormat(". Load average %.2f / %.2f (before / after) on %d cores.",
                                                        result.load_before, result.load_after, result.cores));
  KCOLL_RETURN_IF_ERROR(models::ValidateProfile(profile));
  return profile;
}

std::string FormatReport(const CalibrationResult& result, const models::Profile& profile) {
  std::string out =
      absl::StrCat("kcoll calibration on ", result.host, ", ", result.date, "\n", result.nranks, " ranks on ",
                   result.nodes, result.emulated ? " emulated" : "", " node(s)",
                   result.ranks_per_node > 0 ? absl::StrCat(" of ", result.ranks_per_node, " ranks") : "", "\n");
  absl::StrAppend(&out, absl::StrFormat("load average (1 min) %.2f before, %.2f after, on %d cores\n",
                                        result.load_before, result.load_after, result.cores));
  if (profile.rank_core_share < 1) {
    absl::StrAppend(&out, absl::StrFormat("%d ranks on a host of %d cores: each rank measured with %.2f of a core "
                                          "(rank_core_share)\n",
                                          result.host_ranks, result.cores, profile.rank_core_share));
  }
  if (Busy(result)) {
    absl::StrAppend(&out,
                    "WARNING: other work was running (load average above the core count); the timings include it. "
                    "Calibrate on a quiet machine.\n");
  }
  if (result.emulated && !result.inter.pairs.empty()) {
    absl::StrAppend(&out,
                    result.transport.empty() || result.transport == "mpi"
                        ? "Nodes are emulated (consecutive ranks grouped): inter-node pairs talk through MPI's shared "
                          "memory, exactly like intra-node pairs, so the two classes differ only by noise.\n"
                        : "Nodes are emulated (consecutive ranks grouped): intra-node pairs talk through kcoll's "
                          "shared memory, inter-node pairs through MPI (on the same host).\n");
  }
  const LinkMeasurement* gamma_source = &IntraStepSource(result);  // MakeProfile's gamma curve
  for (const LinkMeasurement* link : {&result.intra, &result.inter}) {
    const char* name = LinkClassName(link->link_class);
    if (link->pairs.empty()) {
      absl::StrAppend(&out, "\n", name, " link: no such pair in this topology; the profile uses the other class\n");
      continue;
    }
    absl::StrAppend(&out, "\n", name, " link: ping-pong through kcoll's ",
                    result.transport.empty() ? "MPI" : result.transport, " transport, pair(s) ", PairsText(link->pairs),
                    "; one-way = ", StatName(result.percentile), " round trip / 2",
                    link->pairs.size() > 1 ? ", median over the pairs" : "", "\n");
    absl::StrAppend(&out, SeriesReport(link->series, result.weighting, true, "alpha", "beta"));
    if (link->step_spread.bytes > 0) {
      const PassSpread& s = link->step_spread;
      absl::StrAppend(
          &out, absl::StrFormat("  the step's passes: slowest / fastest up to %.2fx (at %.0f B)%s\n", s.ratio, s.bytes,
                                s.ratio > kPassSpreadWarning ? "" : "; each size keeps its fastest"));
      if (s.ratio > kPassSpreadWarning) {
        absl::StrAppend(
            &out, absl::StrFormat("  WARNING: the machine changed speed while it was measured (%.1fx at %.0f B); the "
                                  "profile keeps each size's fastest pass. Calibrate again, or read the benchmarks' "
                                  "link probe (bench --model) before trusting the model.\n",
                                  s.ratio, s.bytes));
      }
    }
    if (!link->exchange.samples.empty()) {
      absl::StrAppend(&out, "  collective step, pair(s) ", PairsText(link->exchange_pairs),
                      " at once (a 2-rank ring AllReduce on twice the size): its exchange, both ways (the curve the "
                      "profile prices messages with)\n",
                      StepTable(link->exchange, link->series, false, "exchange", "GB/s each way", "/ ping-pong"));
      absl::StrAppend(&out, "  and its reduction (bytes reduced, one input",
                      link == gamma_source ? "; the profile's gamma curve" : "", ")\n",
                      StepTable(link->step_reduce, result.reduce, true, "reduction", "GB/s", "/ alone"));
    }
  }
  absl::StrAppend(&out, "\nlocal reduction: Serial kernels, float32 sum, dst = a + b, all ", result.nranks,
                  " ranks at once (", StatName(result.percentile),
                  " per rank, median over ranks); bytes = bytes reduced (one input)\n",
                  SeriesReport(result.reduce, result.weighting, false, "launch", "gamma"));
  absl::StrAppend(&out, "\ncopy: Serial Copy kernel, all ranks at once\n",
                  SeriesReport(result.copy_kernel, result.weighting, false, "launch", "1/bandwidth"));
  absl::StrAppend(&out, "\ncopy: std::memcpy, all ranks at once\n",
                  SeriesReport(result.memcpy_series, result.weighting, false, "overhead", "1/bandwidth"));
  absl::StrAppend(
      &out, "\nprofile:\n",
      absl::StrFormat("  intra: alpha = %s, beta = %.4g s/B (%s)\n", FormatSeconds(profile.intra.alpha_s),
                      profile.intra.beta_s_per_byte, Gbps(profile.intra.BytesPerSecond())),
      absl::StrFormat("  inter: alpha = %s, beta = %.4g s/B (%s)\n", FormatSeconds(profile.inter.alpha_s),
                      profile.inter.beta_s_per_byte, Gbps(profile.inter.BytesPerSecond())),
      absl::StrFormat("  gamma = %.4g s/B (%s reduced per rank)\n", profile.gamma_s_per_byte,
                      Gbps(1.0 / profile.gamma_s_per_byte)),
      absl::StrFormat("  memcpy = %s\n", Gbps(profile.memcpy_bytes_per_s)));
  return out;
}

std::string FormatAutoChoices(const Topology& topology, const models::Profile& profile,
                              const std::vector<size_t>& sizes) {
  absl::StatusOr<AutoChoice> choice = AutoChoice::Create(topology, ProfileChoice{profile, "measured"});
  if (!choice.ok()) return absl::StrCat("auto: ", choice.status().message(), "\n");
  std::string out = absl::StrCat("\nauto's choice with this profile on ", topology.nranks, " ranks (", topology.nnodes,
                                 " node(s)), among the registered algorithms:\n");
  absl::StrAppend(&out, absl::StrFormat("  %-16s", "collective"));
  for (size_t bytes : sizes) absl::StrAppend(&out, absl::StrFormat(" %20s", absl::StrCat(bytes, " B")));
  absl::StrAppend(&out, "\n");
  for (Collective c : AllCollectives()) {
    if (AlgorithmsFor(c).empty() || c == Collective::kBarrier) continue;
    absl::StrAppend(&out, absl::StrFormat("  %-16s", CollectiveName(c)));
    for (size_t bytes : sizes) {
      absl::StatusOr<Algorithm> a = choice->Choose(c, bytes);
      absl::StrAppend(&out, absl::StrFormat(" %20s", a.ok() ? std::string(AlgorithmName(*a)) : "error"));
    }
    absl::StrAppend(&out, "\n");
  }
  return out;
}

}  // namespace bench
}  // namespace kcoll
