#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "calibration/calibrate.h"
#include "models/analysis/statistics.h"

namespace kcoll {
namespace calibration {
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

// Completes `request`. kSleep polls every 200 us: a rank that only waits leaves the cores to the ranks that measure
// (MPI's own waits spin). kPoll yields the core between polls, as a collective's ranks wait for a message.
void WaitFor(MPI_Request* request, IdleRanks how = IdleRanks::kSleep) {
  int done = 0;
  while (true) {
    MPI_Test(request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    if (how == IdleRanks::kSleep) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    } else {
      std::this_thread::yield();
    }
  }
}

void SleepyBarrier(MPI_Comm comm) {
  MPI_Request request;
  MPI_Ibarrier(comm, &request);
  WaitFor(&request);
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

}  // namespace

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

const Series& ShmSettingsMeasurement::chosen_slots() const {
  static const Series kNone;
  for (size_t c = 0; c < slot_candidates.size() && c < slot_series.size(); ++c) {
    if (slot_candidates[c] == slot_bytes) return slot_series[c];
  }
  return kNone;
}

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
      WaitFor(&request);
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

int StreamsPerNode(const Topology& topology, const std::vector<std::pair<int, int>>& pairs) {
  std::vector<int> streams(topology.nnodes, 0);
  int most = 1;
  for (const auto& [a, b] : pairs) {
    if (topology.SameNode(a, b)) continue;
    most = std::max({most, ++streams[topology.node_of[a]], ++streams[topology.node_of[b]]});
  }
  return most;
}

namespace {

// One rank's buffers for collective steps on messages of up to `bytes`: the step is a two-rank ring AllReduce of
// float32 on a buffer of 2 * bytes, its input, its result, and the scratch the first exchange lands in.
struct StepBuffers {
  explicit StepBuffers(size_t bytes)
      : in(2 * Floats(bytes), 1.0f), out(2 * Floats(bytes), 0.0f), scratch(Floats(bytes)) {}
  static size_t Floats(size_t bytes) { return (bytes + sizeof(float) - 1) / sizeof(float); }
  // This rank's and its peer's halves of the input and of the result, for messages of `bytes`: the rank whose `low`
  // is true owns the first half. Rewrites the input first (Touch).
  struct Halves {
    float* own_out;
    float* other_out;
    const float* own_in;
    const float* other_in;
  };
  Halves Split(bool low, size_t bytes);
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

StepBuffers::Halves StepBuffers::Split(bool low, size_t bytes) {
  const size_t half = Floats(bytes);
  Touch(in.data(), 2 * half);
  return Halves{out.data() + (low ? 0 : half), out.data() + (low ? half : 0), in.data() + (low ? 0 : half),
                in.data() + (low ? half : 0)};
}

// One step of the pair: exchange the halves of the input (each rank receives the half it owns into scratch),
// reduce its own half into the result, exchange the result halves. The rank whose `low` is true owns the first half.
absl::StatusOr<StepTimes> CollectiveStep(Transport& transport, Kernels& kernels, int peer, bool low, StepBuffers& b,
                                         size_t bytes) {
  const auto [own_out, other_out, own_in, other_in] = b.Split(low, bytes);
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

// This rank's peer in `pairs` (-1: none) and whether it is the pair's lower rank.
std::pair<int, bool> PeerIn(const std::vector<std::pair<int, int>>& pairs, int rank) {
  for (const auto& [a, b] : pairs) {
    if (rank == a) return {b, true};
    if (rank == b) return {a, false};
  }
  return {-1, false};
}

// Times of one step's parts on this rank, and the step's whole time (what sets the repetitions).
struct PartTimes {
  std::vector<double> parts;
  double total = 0;
};

// One step of this rank's pair on messages of `bytes` (peer, whether this rank is the pair's lower one, its buffers).
using PairStep = std::function<absl::StatusOr<PartTimes>(int peer, bool low, StepBuffers& buffers, size_t bytes)>;

// Runs `step` over `sizes` on every pair of `pairs` at once. Per size and part: the median over the ranks of each
// rank's percentile time, and the repetitions; on rank 0 only.
absl::StatusOr<std::vector<Series>> TimePairSteps(MPI_Comm control, const std::vector<std::pair<int, int>>& pairs,
                                                  int parts, const std::vector<double>& sizes,
                                                  const CalibrationOptions& options, const PairStep& pair_step,
                                                  IdleRanks idle_ranks = IdleRanks::kSleep) {
  int rank = 0, nranks = 1;
  MPI_Comm_rank(control, &rank);
  MPI_Comm_size(control, &nranks);
  const auto [peer, low] = PeerIn(pairs, rank);
  const bool in_pair = peer >= 0;
  const IdleRanks waits = in_pair ? IdleRanks::kSleep : idle_ranks;  // the pairs' ranks sleep in the control calls
  StepBuffers buffers(in_pair ? static_cast<size_t>(*std::max_element(sizes.begin(), sizes.end())) : 0);
  auto step = [&, peer = peer, low = low](size_t bytes) { return pair_step(peer, low, buffers, bytes); };
  std::vector<Series> series(parts);
  for (double size : sizes) {
    const size_t bytes = static_cast<size_t>(size);
    // Every pair warms up; the slowest pair's fastest warm-up sets everyone's repetitions.
    double probe = 0;
    if (in_pair) {
      for (int warmup = 0; warmup < kWarmups; ++warmup) {
        KCOLL_ASSIGN_OR_RETURN(PartTimes t, step(bytes));
        probe = warmup == 0 ? t.total : std::min(probe, t.total);
      }
    }
    double slowest = 0;
    MPI_Request request;
    MPI_Iallreduce(&probe, &slowest, 1, MPI_DOUBLE, MPI_MAX, control, &request);
    WaitFor(&request, waits);
    const int reps = RepsFor(slowest, options);
    std::vector<double> mine(parts, -1);  // this rank's percentile time of each part; -1: not in a pair
    if (in_pair) {
      std::vector<std::vector<double>> times(parts);
      for (int i = 0; i < reps; ++i) {
        KCOLL_ASSIGN_OR_RETURN(PartTimes t, step(bytes));
        for (int p = 0; p < parts; ++p) times[p].push_back(t.parts[p]);
      }
      for (int p = 0; p < parts; ++p) mine[p] = Percentile(times[p], options.percentile);
    }
    std::vector<double> all(rank == 0 ? parts * nranks : 0);
    MPI_Igather(mine.data(), parts, MPI_DOUBLE, all.data(), parts, MPI_DOUBLE, 0, control, &request);
    WaitFor(&request, waits);
    if (rank != 0) continue;
    for (int p = 0; p < parts; ++p) {
      std::vector<double> over_ranks;
      for (int r = 0; r < nranks; ++r) {
        if (all[parts * r + p] >= 0) over_ranks.push_back(all[parts * r + p]);
      }
      series[p].samples.push_back({size, Median(over_ranks)});
      series[p].reps.push_back(reps);
    }
  }
  return series;
}

// One ring step of the pair on messages of `bytes` (MeasureRingStep).
absl::StatusOr<double> RingStep(Transport& transport, Kernels& kernels, int peer, bool low, StepBuffers& b,
                                size_t bytes) {
  const auto [own_out, other_out, own_in, other_in] = b.Split(low, bytes);
  const size_t floats = bytes / sizeof(float), message = floats * sizeof(float);
  Transport::ChunkReducer reduce = [&kernels](void* dst, const void* local, const void* incoming, size_t n) {
    return kernels.Reduce(ReduceOp::kSum, DataType::kFloat32, dst, local, incoming, n / sizeof(float));
  };
  const double start = Now();
  if (transport.FusesReduce(peer)) {
    KCOLL_RETURN_IF_ERROR(transport.RecvReduce(peer, own_out, own_in, message, 0, reduce).status());
    KCOLL_RETURN_IF_ERROR(transport.Send(peer, other_in, message, 0).status());
    KCOLL_RETURN_IF_ERROR(transport.WaitAll());
  } else {
    KCOLL_RETURN_IF_ERROR(transport.Recv(peer, b.scratch.data(), message, 0).status());
    KCOLL_RETURN_IF_ERROR(transport.Send(peer, other_in, message, 0).status());
    KCOLL_RETURN_IF_ERROR(transport.WaitAll());
    KCOLL_RETURN_IF_ERROR(
        kernels.Reduce(ReduceOp::kSum, DataType::kFloat32, own_out, own_in, b.scratch.data(), floats));
  }
  KCOLL_RETURN_IF_ERROR(transport.Recv(peer, other_out, message, 0).status());
  KCOLL_RETURN_IF_ERROR(transport.Send(peer, own_out, message, 0).status());
  KCOLL_RETURN_IF_ERROR(transport.WaitAll());
  return Now() - start;
}

}  // namespace

absl::StatusOr<StepSeries> MeasureStep(Transport& transport, Kernels& kernels, MPI_Comm control,
                                       const std::vector<std::pair<int, int>>& pairs, const std::vector<double>& sizes,
                                       const CalibrationOptions& options, IdleRanks idle_ranks) {
  auto step = [&](int peer, bool low, StepBuffers& buffers, size_t bytes) -> absl::StatusOr<PartTimes> {
    KCOLL_ASSIGN_OR_RETURN(StepTimes t, CollectiveStep(transport, kernels, peer, low, buffers, bytes));
    return PartTimes{{t.exchange, t.reduce}, 2 * t.exchange + t.reduce};
  };
  KCOLL_ASSIGN_OR_RETURN(std::vector<Series> parts, TimePairSteps(control, pairs, 2, sizes, options, step, idle_ranks));
  StepSeries series;
  series.exchange = std::move(parts[0]);
  series.reduce = std::move(parts[1]);
  // The reduction covers whole floats: record the bytes it reduced.
  for (Sample& s : series.reduce.samples) {
    s.bytes = static_cast<double>(static_cast<size_t>(s.bytes) / sizeof(float) * sizeof(float));
  }
  return series;
}

absl::StatusOr<Series> MeasureRingStep(Transport& transport, Kernels& kernels, MPI_Comm control,
                                       const std::vector<std::pair<int, int>>& pairs, const std::vector<double>& sizes,
                                       const CalibrationOptions& options) {
  auto step = [&](int peer, bool low, StepBuffers& buffers, size_t bytes) -> absl::StatusOr<PartTimes> {
    KCOLL_ASSIGN_OR_RETURN(double seconds, RingStep(transport, kernels, peer, low, buffers, bytes));
    return PartTimes{{seconds}, seconds};
  };
  KCOLL_ASSIGN_OR_RETURN(std::vector<Series> parts, TimePairSteps(control, pairs, 1, sizes, options, step));
  return std::move(parts[0]);
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
    link->streams_per_node = StreamsPerNode(topology, link->exchange_pairs);
    // Rounds that send one stream through a node's link are priced with its time alone (models/machine.h).
    if (link->link_class == LinkClass::kInter && link->streams_per_node > 1 && !topology.emulated) {
      link->one_stream_pairs = {link->exchange_pairs.front()};
    }
    std::vector<std::vector<Series>> ping_pongs(link->pairs.size());  // [pair][pass]
    std::vector<Series> exchanges, reductions, one_stream;            // [pass]
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
      if (!link->one_stream_pairs.empty()) {
        KCOLL_ASSIGN_OR_RETURN(StepSeries s, MeasureStep(transport, kernels, control, link->one_stream_pairs, sizes,
                                                         pass_options, IdleRanks::kPoll));
        one_stream.push_back(std::move(s.exchange));
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
    if (!one_stream.empty()) link->one_stream = FastestOf(one_stream);
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

}  // namespace calibration
}  // namespace kcoll
