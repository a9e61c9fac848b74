// //bench:kernels: the element-wise kernels kcoll's algorithms run between transfers (Kernels::Reduce and
// Kernels::Copy, the Kokkos functors of collectives/kernels), per execution space, data type and reduce op, in GB/s,
// beside a baseline measured in the same run: the memory bandwidth ceiling those kernels should approach on large
// arrays. On host spaces the baseline is a STREAM-style copy (c = a) and add (c = a + b) loop on float, timed with
// the host clock; on cuda (a CUDA build, device buffers) it is a device-to-device cudaMemcpy, and every kernel is
// timed with CUDA events on the kernels' stream.
//
// Bytes moved per element follow STREAM: a copy moves 2 arrays (read + write), a reduce/add 3 (two reads, one write).
// numerics=exact's two-term sums of float64 (ExactSumOfTwo, and ExactFold over two rows) count the same 3 arrays.
// Sizes are bytes per array. Options: -b/-e/-f sizes (default 1M to 64M by x8), -n timed iterations (default 10),
// -w warm-up (default 2), -d types (default all), -o ops (default all), --exec serial|openmp|cuda|all (default all:
// every space of this build), --stores compare (host spaces: copy and float32 sum also with ordinary stores only and
// with streaming stores at every size, for the streaming-store threshold), plus Google Benchmark's flags. Ends with
// the ratio of Kokkos sum on float32 to STREAM add per host space and size, and on cuda of Kokkos sum per type and
// Kokkos copy to cudaMemcpy; with --stores compare, the streaming rows against the ordinary ones.
#include <benchmark/benchmark.h>
#if defined(_OPENMP)
#include <omp.h>
#endif

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/types.h"
#include "bench/data/device_memory.h"
#include "bench/options/sizes.h"
#include "collectives/kernels/backend.h"
#include "collectives/kernels/streaming_stores.h"

namespace kcoll {
namespace bench {
namespace {

using Clock = std::chrono::steady_clock;

struct KernelOptions {
  size_t min_bytes = size_t{1} << 20, max_bytes = size_t{64} << 20, factor = 8;
  int iters = 10, warmup = 2;
  std::vector<DataType> types = AllDataTypes();
  std::vector<ReduceOp> ops{ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMin, ReduceOp::kMax};
  std::vector<ExecBackend> backends;
  bool compare_stores = false;
};

struct Arrays {
  char* a = nullptr;
  char* b = nullptr;
  char* c = nullptr;
};

// How a space's kernels are timed: the host clock, or CUDA events on `stream`.
struct Clocking {
  bool device = false;
  void* stream = nullptr;
};

// One execution space under test: its kernels and arrays; on cuda the arrays are device memory and the clocking's
// stream is the kernels' stream, on which every kernel and the cudaMemcpy baseline are timed.
struct Space {
  ExecBackend backend = ExecBackend::kSerial;
  std::unique_ptr<Kernels> kernels;
  // --stores compare on a host space: the same kernels with streaming stores off, and on at every size.
  std::unique_ptr<Kernels> cached;
  std::unique_ptr<Kernels> streaming;
  Arrays arrays;
  Clocking clocking;
};

// 0x3f bytes are normal, finite numbers in every float type (no denormal slow paths) and plain integers.
constexpr int kFillByte = 0x3f;

absl::Status AllocateArrays(Space& space, size_t bytes) {
  for (char** p : {&space.arrays.a, &space.arrays.b, &space.arrays.c}) {
    if (space.clocking.device) {
      absl::StatusOr<void*> d = DeviceAlloc(bytes);
      if (!d.ok()) return d.status();
      *p = static_cast<char*>(*d);
      if (absl::Status s = DeviceFill(*p, kFillByte, bytes); !s.ok()) return s;
    } else {
      *p = static_cast<char*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64));
      if (*p == nullptr) return absl::ResourceExhaustedError(absl::StrCat("cannot allocate ", bytes, " bytes"));
      std::memset(*p, kFillByte, bytes);
    }
  }
  return absl::OkStatus();
}

void FreeArrays(Space& space) {
  for (char* p : {space.arrays.a, space.arrays.b, space.arrays.c}) {
    if (space.clocking.device) {
      DeviceFree(p);
    } else {
      std::free(p);
    }
  }
  space.arrays = Arrays();
}

// Seconds one run of `body` takes: the host clock around it on host spaces, CUDA events on the stream on cuda.
absl::StatusOr<double> TimeOnce(const Clocking& clocking, const std::function<absl::Status()>& body) {
  if (clocking.device) return TimeOnStream(clocking.stream, body);
  const auto t0 = Clock::now();
  if (absl::Status s = body(); !s.ok()) return s;
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Bandwidths of every benchmark that ran, by name, for the summary: the mean over the timed iterations and, as
// STREAM reports it, the best (shortest) iteration, which is the least disturbed by other work on the machine.
struct Rates {
  double mean_gbps = 0;
  double best_gbps = 0;
};

std::map<std::string, Rates>& Results() {
  static auto* results = new std::map<std::string, Rates>;
  return *results;
}

void Measure(benchmark::State& state, const KernelOptions& o, const std::string& key, double bytes_moved,
             const Clocking& clocking, const std::function<absl::Status()>& body) {
  for (int i = 0; i < o.warmup; ++i) {
    if (absl::StatusOr<double> t = TimeOnce(clocking, body); !t.ok()) {
      state.SkipWithError(t.status().ToString().c_str());
      return;
    }
  }
  double total = 0, best = 0;
  for (auto _ : state) {
    const absl::StatusOr<double> t = TimeOnce(clocking, body);
    if (!t.ok()) {
      state.SkipWithError(t.status().ToString().c_str());
      return;
    }
    const double s = *t;
    state.SetIterationTime(s);
    total += s;
    if (best == 0 || s < best) best = s;
  }
  Rates r;
  r.mean_gbps = total > 0 ? bytes_moved * state.iterations() / total / 1e9 : 0;
  r.best_gbps = best > 0 ? bytes_moved / best / 1e9 : 0;
  state.counters["GBps"] = r.mean_gbps;
  state.counters["GBps_best"] = r.best_gbps;
  state.counters["bytes"] = bytes_moved;
  Results()[key] = r;
}

void StreamCopy(const float* a, float* c, size_t n, bool parallel) {
  if (parallel) {
#if defined(_OPENMP)
#pragma omp parallel for schedule(static)
#endif
    for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) c[i] = a[i];
  } else {
    for (size_t i = 0; i < n; ++i) c[i] = a[i];
  }
}

void StreamAdd(const float* a, const float* b, float* c, size_t n, bool parallel) {
  if (parallel) {
#if defined(_OPENMP)
#pragma omp parallel for schedule(static)
#endif
    for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) c[i] = a[i] + b[i];
  } else {
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
  }
}

absl::StatusOr<KernelOptions> Parse(int argc, char** argv) {
  KernelOptions o;
  o.backends = AvailableBackends();
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (absl::StartsWith(arg, "--benchmark_") || absl::StartsWith(arg, "--kokkos-")) continue;
    std::string flag = arg, value;
    if (const size_t eq = arg.find('='); absl::StartsWith(arg, "--") && eq != std::string::npos) {
      flag = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    } else if (arg.size() > 2 && arg[0] == '-' && arg[1] != '-') {
      flag = arg.substr(0, 2);
      value = arg.substr(2);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      return absl::InvalidArgumentError(absl::StrCat(arg, ": missing value"));
    }
    auto bad = [&](absl::string_view why) {
      return absl::InvalidArgumentError(absl::StrCat(flag, " '", value, "': ", why));
    };
    if (flag == "-b" || flag == "-e") {
      auto v = ParseByteSize(value);
      if (!v.ok()) return bad(v.status().message());
      (flag == "-b" ? o.min_bytes : o.max_bytes) = *v;
    } else if (flag == "-f") {
      int v = 0;
      if (!absl::SimpleAtoi(value, &v) || v < 2) return bad("must be an integer >= 2");
      o.factor = v;
    } else if (flag == "-n" || flag == "-w") {
      int v = 0;
      if (!absl::SimpleAtoi(value, &v) || v < (flag == "-n" ? 1 : 0)) return bad("not a valid count");
      (flag == "-n" ? o.iters : o.warmup) = v;
    } else if (flag == "-d") {
      if (value == "all") continue;
      o.types.clear();
      for (absl::string_view t : absl::StrSplit(value, ',')) {
        auto type = ParseDataType(t);
        if (!type.ok()) return bad(type.status().message());
        o.types.push_back(*type);
      }
    } else if (flag == "-o") {
      if (value == "all") continue;
      o.ops.clear();
      for (absl::string_view t : absl::StrSplit(value, ',')) {
        auto op = ParseReduceOp(t);
        if (!op.ok() || *op == ReduceOp::kAvg) return bad("not one of sum, prod, min, max, all");
        o.ops.push_back(*op);
      }
    } else if (flag == "--stores") {
      if (value != "compare" && value != "default") return bad("not one of default, compare");
      o.compare_stores = value == "compare";
    } else if (flag == "--exec") {
      if (value == "all") continue;
      auto b = ParseExecBackend(value);
      if (!b.ok() || !IsAvailable(*b)) {
        std::vector<std::string> names;
        for (ExecBackend a : AvailableBackends()) names.emplace_back(ExecBackendName(a));
        return bad(absl::StrCat("not an execution space of this build (", absl::StrJoin(names, ", "), ") or all"));
      }
      o.backends = {*b};
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown option '", arg, "'"));
    }
  }
  if (o.min_bytes == 0 || o.min_bytes > o.max_bytes) {
    return absl::InvalidArgumentError(absl::StrCat("sizes: -b ", o.min_bytes, " -e ", o.max_bytes, " is empty"));
  }
  return o;
}

void Register(const KernelOptions& o, const std::string& name, double bytes_moved, const Clocking& clocking,
              std::function<absl::Status()> body) {
  benchmark::RegisterBenchmark(name.c_str(),
                               [=](benchmark::State& st) { Measure(st, o, name, bytes_moved, clocking, body); })
      ->UseManualTime()
      ->Iterations(o.iters)
      ->Unit(benchmark::kMicrosecond);
}

// Every benchmark of one space: its baseline (STREAM copy and add on host, cudaMemcpy device-to-device on cuda),
// Kokkos copy, and Kokkos reduce per type and op.
void RegisterSpace(const KernelOptions& o, const std::vector<size_t>& sizes, const Space& space) {
  const bool parallel = space.backend == ExecBackend::kOpenMP;
  const std::string name(ExecBackendName(space.backend));
  const Arrays arrays = space.arrays;
  const Clocking clocking = space.clocking;
  void* stream = clocking.stream;
  Kernels* k = space.kernels.get();
  for (size_t bytes : sizes) {
    const size_t nf = bytes / sizeof(float);
    auto* a = reinterpret_cast<float*>(arrays.a);
    auto* b = reinterpret_cast<float*>(arrays.b);
    auto* c = reinterpret_cast<float*>(arrays.c);
    if (space.clocking.device) {
      Register(o, absl::StrCat("cudamemcpy/copy/", name, "/bytes/", bytes), 2.0 * bytes, clocking,
               [=] { return DeviceCopyAsync(arrays.c, arrays.a, bytes, stream); });
    } else {
      Register(o, absl::StrCat("stream/copy/", name, "/float32/", bytes), 2.0 * nf * sizeof(float), clocking, [=] {
        StreamCopy(a, c, nf, parallel);
        return absl::OkStatus();
      });
      Register(o, absl::StrCat("stream/add/", name, "/float32/", bytes), 3.0 * nf * sizeof(float), clocking, [=] {
        StreamAdd(a, b, c, nf, parallel);
        return absl::OkStatus();
      });
    }
    Register(o, absl::StrCat("kokkos/copy/", name, "/bytes/", bytes), 2.0 * bytes, clocking,
             [=] { return k->Copy(arrays.c, arrays.a, bytes); });
    for (const auto& variant :
         {std::make_pair("cached", space.cached.get()), std::make_pair("streaming", space.streaming.get())}) {
      const char* label = variant.first;
      Kernels* kernels = variant.second;
      if (kernels == nullptr) continue;
      // As a part of a larger destination, so that the streaming kernels stream it (a whole copy is memcpy's).
      Register(o, absl::StrCat("kokkos-", label, "/copy/", name, "/bytes/", bytes), 2.0 * bytes, clocking,
               [=] { return kernels->Copy(arrays.c, arrays.a, bytes, bytes + 1); });
      Register(o, absl::StrCat("kokkos-", label, "/reduce/", name, "/float32/sum/", bytes), 3.0 * bytes, clocking,
               [=] { return kernels->Reduce(ReduceOp::kSum, DataType::kFloat32, arrays.c, arrays.a, arrays.b, nf); });
    }
    if (std::find(o.types.begin(), o.types.end(), DataType::kFloat64) != o.types.end()) {
      // numerics=exact's sums of two terms per element, beside the plain sum below: two ranks' blocks held apart
      // (ExactSumOfTwo), and the general fold over two rows of one array (ExactFold, half the elements).
      const size_t n = bytes / sizeof(double);
      Register(o, absl::StrCat("kokkos/exact_sum_of_two/", name, "/float64/", bytes), 3.0 * bytes, clocking,
               [=] { return k->ExactSumOfTwo(DataType::kFloat64, arrays.c, arrays.a, arrays.b, n); });
      Register(o, absl::StrCat("kokkos/exact_fold_two_rows/", name, "/float64/", bytes), 1.5 * bytes, clocking,
               [=] { return k->ExactFold(DataType::kFloat64, arrays.c, arrays.a, n / 2, n / 2, 2, 2); });
    }
    for (DataType type : o.types) {
      const size_t n = bytes / DataTypeSize(type);
      for (ReduceOp op : o.ops) {
        Register(o, absl::StrCat("kokkos/reduce/", name, "/", DataTypeName(type), "/", ReduceOpName(op), "/", bytes),
                 3.0 * n * DataTypeSize(type), clocking,
                 [=] { return k->Reduce(op, type, arrays.c, arrays.a, arrays.b, n); });
      }
    }
  }
}

// Host spaces: Kokkos sum on float32 against STREAM add, same space and size (best iterations, as STREAM).
void PrintHostSummary(ExecBackend backend, const std::vector<size_t>& sizes) {
  const std::string space(ExecBackendName(backend));
  std::printf(
      "\n# %s: Kokkos reduce (sum, float32) vs STREAM add (c = a + b), same size;\n"
      "# best iteration (STREAM's convention) and mean over the iterations\n",
      space.c_str());
  std::printf("# %8s  %12s  %12s  %12s  %7s  %12s  %12s  %7s\n", "space", "bytes/array", "kokkos best", "stream best",
              "ratio", "kokkos mean", "stream mean", "ratio");
  for (size_t bytes : sizes) {
    auto kk = Results().find(absl::StrCat("kokkos/reduce/", space, "/float32/sum/", bytes));
    auto st = Results().find(absl::StrCat("stream/add/", space, "/float32/", bytes));
    if (kk == Results().end() || st == Results().end()) continue;
    const Rates& k = kk->second;
    const Rates& s = st->second;
    std::printf("  %8s  %12zu  %12.2f  %12.2f  %7.3f  %12.2f  %12.2f  %7.3f\n", space.c_str(), bytes, k.best_gbps,
                s.best_gbps, s.best_gbps > 0 ? k.best_gbps / s.best_gbps : 0.0, k.mean_gbps, s.mean_gbps,
                s.mean_gbps > 0 ? k.mean_gbps / s.mean_gbps : 0.0);
  }
}

// --stores compare: copy and float32 sum with streaming stores against ordinary ones, and what the default threshold
// chose at each size (best iterations).
void PrintStoresSummary(ExecBackend backend, const std::vector<size_t>& sizes, size_t threshold) {
  const std::string space(ExecBackendName(backend));
  std::printf(
      "\n# %s: streaming stores against ordinary stores, best iteration, GB/s counted as STREAM; the default writes\n"
      "# destinations of at least %zu bytes with streaming stores (KCOLL_STREAMING_STORES)\n",
      space.c_str(), threshold);
  std::printf("# %8s  %12s  %8s  %10s  %10s  %7s  %10s\n", "space", "bytes/array", "kernel", "ordinary", "streaming",
              "ratio", "default");
  for (size_t bytes : sizes) {
    for (const char* kernel : {"copy", "reduce"}) {
      const std::string tail =
          absl::StrCat("/", kernel, "/", space, kernel[0] == 'c' ? "/bytes/" : "/float32/sum/", bytes);
      auto cached = Results().find("kokkos-cached" + tail);
      auto streaming = Results().find("kokkos-streaming" + tail);
      if (cached == Results().end() || streaming == Results().end()) continue;
      const double c = cached->second.best_gbps, s = streaming->second.best_gbps;
      std::printf("  %8s  %12zu  %8s  %10.2f  %10.2f  %7.3f  %10s\n", space.c_str(), bytes, kernel, c, s,
                  c > 0 ? s / c : 0.0, bytes >= threshold ? "streaming" : "ordinary");
    }
  }
}

// cuda: Kokkos copy and Kokkos sum per type against a device-to-device cudaMemcpy of the same size, with the goal
// each should reach (float32 and wider 0.85x, 16-bit and narrower 0.7x).
void PrintDeviceSummary(const KernelOptions& o, const std::vector<size_t>& sizes) {
  std::printf(
      "\n# cuda: Kokkos kernels vs cudaMemcpy device-to-device, same size, GB/s counted as STREAM (copy 2 arrays,\n"
      "# reduce 3); best iteration and mean over the iterations; goal: the ratio each kernel should reach\n");
  std::printf("# %-18s  %12s  %12s  %12s  %7s  %12s  %12s  %7s  %5s\n", "kernel", "bytes/array", "kokkos best",
              "memcpy best", "ratio", "kokkos mean", "memcpy mean", "ratio", "goal");
  std::vector<std::pair<std::string, std::string>> kernels = {{"copy", "kokkos/copy/cuda/bytes/"}};
  for (DataType type : o.types) {
    kernels.emplace_back(absl::StrCat("sum ", DataTypeName(type)),
                         absl::StrCat("kokkos/reduce/cuda/", DataTypeName(type), "/sum/"));
  }
  for (size_t bytes : sizes) {
    auto mc = Results().find(absl::StrCat("cudamemcpy/copy/cuda/bytes/", bytes));
    if (mc == Results().end()) continue;
    const Rates& m = mc->second;
    for (size_t i = 0; i < kernels.size(); ++i) {
      auto kk = Results().find(absl::StrCat(kernels[i].second, bytes));
      if (kk == Results().end()) continue;
      const Rates& k = kk->second;
      const double goal = i > 0 && DataTypeSize(o.types[i - 1]) <= 2 ? 0.7 : 0.85;
      std::printf("  %-18s  %12zu  %12.2f  %12.2f  %7.3f  %12.2f  %12.2f  %7.3f  %5.2f\n", kernels[i].first.c_str(),
                  bytes, k.best_gbps, m.best_gbps, m.best_gbps > 0 ? k.best_gbps / m.best_gbps : 0.0, k.mean_gbps,
                  m.mean_gbps, m.mean_gbps > 0 ? k.mean_gbps / m.mean_gbps : 0.0, goal);
    }
  }
}

int Main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "-h") == 0 || std::strcmp(argv[i], "--help") == 0) {
      std::printf(
          "Usage: %s [-b SIZE] [-e SIZE] [-f N] [-n N] [-w N] [-d TYPES|all] [-o OPS|all] "
          "[--exec serial|openmp|cuda|all] [--stores default|compare] [--benchmark_filter=...]\n",
          argv[0]);
      return 0;
    }
  }
  auto parsed = Parse(argc, argv);
  if (!parsed.ok()) {
    std::fprintf(stderr, "kernels: %s\n", std::string(parsed.status().message()).c_str());
    return 2;
  }
  const KernelOptions o = *parsed;
  const absl::StatusOr<size_t> threshold = StreamingStoreMinBytesFromEnv();
  if (!threshold.ok()) {
    std::fprintf(stderr, "kernels: %s\n", std::string(threshold.status().message()).c_str());
    return 2;
  }
  auto sizes = MakeSizeList(o.min_bytes, o.max_bytes, o.factor, 0);
  if (!sizes.ok()) {
    std::fprintf(stderr, "kernels: %s\n", std::string(sizes.status().message()).c_str());
    return 2;
  }
  Kokkos::initialize(argc, argv);
  int code = 0;
  {
    std::vector<Space> spaces;
    for (ExecBackend b : o.backends) {
      Space space;
      space.backend = b;
      space.clocking.device = b == ExecBackend::kCuda;
      // On cuda the kernels stay asynchronous: the events around them on the stream time them.
      auto k = MakeKernels(b, /*synchronous=*/!space.clocking.device);
      absl::Status s = k.status();
      if (s.ok() && space.clocking.device) {
        absl::StatusOr<CudaPlacement> placement = CudaKernelsPlacement();
        s = placement.status();
        if (s.ok()) space.clocking.stream = placement->stream;
      }
      if (s.ok() && o.compare_stores && !space.clocking.device) {
        auto cached = MakeKernels(b, /*synchronous=*/true, kNoStreamingStores);
        auto streaming = MakeKernels(b, /*synchronous=*/true, 0);
        s = cached.ok() ? streaming.status() : cached.status();
        if (s.ok()) {
          space.cached = std::move(*cached);
          space.streaming = std::move(*streaming);
        }
      }
      if (s.ok()) s = AllocateArrays(space, sizes->back());
      if (!s.ok()) {
        std::fprintf(stderr, "kernels: %s: %s\n", std::string(ExecBackendName(b)).c_str(), s.ToString().c_str());
        FreeArrays(space);
        for (Space& done : spaces) FreeArrays(done);
        Kokkos::finalize();
        return 1;
      }
      space.kernels = std::move(*k);
      spaces.push_back(std::move(space));
    }
#if defined(_OPENMP)
    const int omp_threads = omp_get_max_threads();
#else
    const int omp_threads = 1;  // a Kokkos without OpenMP (Serial + CUDA): kcoll compiles without -fopenmp
#endif
    for (const Space& space : spaces) RegisterSpace(o, *sizes, space);
    benchmark::Initialize(&argc, argv);
    std::printf(
        "# kcoll kernels: bytes per array %zu..%zu; STREAM counting (copy 2, reduce/add 3 arrays); "
        "OpenMP threads %d; GB/s = 1e9 B/s\n",
        o.min_bytes, o.max_bytes, omp_threads);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    for (const Space& space : spaces) {
      if (space.clocking.device) {
        PrintDeviceSummary(o, *sizes);
      } else {
        PrintHostSummary(space.backend, *sizes);
        if (space.cached != nullptr) PrintStoresSummary(space.backend, *sizes, *threshold);
      }
    }
    for (Space& space : spaces) FreeArrays(space);
    spaces.clear();  // the kernels go before Kokkos does
  }
  Kokkos::finalize();
  return code;
}

}  // namespace
}  // namespace bench
}  // namespace kcoll

int main(int argc, char** argv) { return kcoll::bench::Main(argc, argv); }
