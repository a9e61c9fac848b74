// //bench:kernels: the element-wise kernels kcoll's algorithms run between transfers (Kernels::Reduce and
// Kernels::Copy, the Kokkos functors of collectives/kernels), per execution space, data type and reduce op, in GB/s,
// beside a STREAM-style copy (c = a) and add (c = a + b) loop on float measured in the same run: the memory
// bandwidth ceiling those kernels should approach on large arrays.
//
// Bytes moved per element follow STREAM: a copy moves 2 arrays (read + write), a reduce/add 3 (two reads, one write).
// Sizes are bytes per array. Options: -b/-e/-f sizes (default 1M to 64M by x8), -n timed iterations (default 10),
// -w warm-up (default 2), -d types (default all), -o ops (default all), --exec serial|openmp|all (default all), plus
// Google Benchmark's flags. Ends with the ratio of Kokkos sum on float32 to STREAM add per space and size.
#include <benchmark/benchmark.h>
#if defined(_OPENMP)
#include <omp.h>
#endif

#include <Kokkos_Core.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "bench/sizes.h"
#include "collectives/kernels/backend.h"
#include "collectives/types.h"

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
};

struct Arrays {
  char* a = nullptr;
  char* b = nullptr;
  char* c = nullptr;
};

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

template <class Body>
void Measure(benchmark::State& state, const KernelOptions& o, const std::string& key, double bytes_moved, Body body) {
  for (int i = 0; i < o.warmup; ++i) body();
  double total = 0, best = 0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    body();
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
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
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) c[i] = a[i];
  } else {
    for (size_t i = 0; i < n; ++i) c[i] = a[i];
  }
}

void StreamAdd(const float* a, const float* b, float* c, size_t n, bool parallel) {
  if (parallel) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) c[i] = a[i] + b[i];
  } else {
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
  }
}

absl::StatusOr<KernelOptions> Parse(int argc, char** argv) {
  KernelOptions o;
  o.backends = {};
  for (ExecBackend b : AvailableBackends()) {
    if (b != ExecBackend::kCuda) o.backends.push_back(b);
  }
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
    } else if (flag == "--exec") {
      if (value == "all") continue;
      auto b = ParseExecBackend(value);
      if (!b.ok() || !IsAvailable(*b) || *b == ExecBackend::kCuda) return bad("not serial, openmp or all");
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

int Main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "-h") == 0 || std::strcmp(argv[i], "--help") == 0) {
      std::printf(
          "Usage: %s [-b SIZE] [-e SIZE] [-f N] [-n N] [-w N] [-d TYPES|all] [-o OPS|all] "
          "[--exec serial|openmp|all] [--benchmark_filter=...]\n",
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
  auto sizes = MakeSizeList(o.min_bytes, o.max_bytes, o.factor, 0);
  if (!sizes.ok()) {
    std::fprintf(stderr, "kernels: %s\n", std::string(sizes.status().message()).c_str());
    return 2;
  }
  Kokkos::initialize(argc, argv);
  int code = 0;
  {
    Arrays arrays;
    const size_t max_bytes = sizes->back();
    for (char** p : {&arrays.a, &arrays.b, &arrays.c}) {
      *p = static_cast<char*>(std::aligned_alloc(64, (max_bytes + 63) / 64 * 64));
      // 0x3f bytes are normal, finite numbers in every float type (no denormal slow paths) and plain integers.
      std::memset(*p, 0x3f, max_bytes);
    }
    std::map<ExecBackend, std::unique_ptr<Kernels>> kernels;
    for (ExecBackend b : o.backends) {
      auto k = MakeKernels(b, /*synchronous=*/true);
      if (!k.ok()) {
        std::fprintf(stderr, "kernels: %s\n", k.status().ToString().c_str());
        return 1;
      }
      kernels[b] = std::move(*k);
    }
#if defined(_OPENMP)
    const int omp_threads = omp_get_max_threads();
#else
    const int omp_threads = 1;  // a Kokkos without OpenMP (Serial + CUDA): kcoll compiles without -fopenmp
#endif
    for (ExecBackend b : o.backends) {
      const bool parallel = b == ExecBackend::kOpenMP;
      const std::string space(ExecBackendName(b));
      Kernels* k = kernels[b].get();
      for (size_t bytes : *sizes) {
        const size_t nf = bytes / sizeof(float);
        const std::string copy_name = absl::StrCat("stream/copy/", space, "/float32/", bytes);
        benchmark::RegisterBenchmark(copy_name.c_str(),
                                     [=, &arrays](benchmark::State& st) {
                                       Measure(st, o, copy_name, 2.0 * nf * sizeof(float), [&] {
                                         StreamCopy(reinterpret_cast<float*>(arrays.a),
                                                    reinterpret_cast<float*>(arrays.c), nf, parallel);
                                       });
                                     })
            ->UseManualTime()
            ->Iterations(o.iters)
            ->Unit(benchmark::kMicrosecond);
        const std::string add_name = absl::StrCat("stream/add/", space, "/float32/", bytes);
        benchmark::RegisterBenchmark(add_name.c_str(),
                                     [=, &arrays](benchmark::State& st) {
                                       Measure(st, o, add_name, 3.0 * nf * sizeof(float), [&] {
                                         StreamAdd(reinterpret_cast<float*>(arrays.a),
                                                   reinterpret_cast<float*>(arrays.b),
                                                   reinterpret_cast<float*>(arrays.c), nf, parallel);
                                       });
                                     })
            ->UseManualTime()
            ->Iterations(o.iters)
            ->Unit(benchmark::kMicrosecond);
        const std::string kcopy_name = absl::StrCat("kokkos/copy/", space, "/bytes/", bytes);
        benchmark::RegisterBenchmark(kcopy_name.c_str(),
                                     [=, &arrays](benchmark::State& st) {
                                       Measure(st, o, kcopy_name, 2.0 * bytes, [&] {
                                         if (!k->Copy(arrays.c, arrays.a, bytes).ok()) st.SkipWithError("Copy failed");
                                       });
                                     })
            ->UseManualTime()
            ->Iterations(o.iters)
            ->Unit(benchmark::kMicrosecond);
        for (DataType type : o.types) {
          const size_t n = bytes / DataTypeSize(type);
          for (ReduceOp op : o.ops) {
            const std::string name =
                absl::StrCat("kokkos/reduce/", space, "/", DataTypeName(type), "/", ReduceOpName(op), "/", bytes);
            benchmark::RegisterBenchmark(name.c_str(),
                                         [=, &arrays](benchmark::State& st) {
                                           Measure(st, o, name, 3.0 * n * DataTypeSize(type), [&] {
                                             if (!k->Reduce(op, type, arrays.c, arrays.a, arrays.b, n).ok())
                                               st.SkipWithError("Reduce failed");
                                           });
                                         })
                ->UseManualTime()
                ->Iterations(o.iters)
                ->Unit(benchmark::kMicrosecond);
          }
        }
      }
    }
    benchmark::Initialize(&argc, argv);
    std::printf(
        "# kcoll kernels: bytes per array %zu..%zu; STREAM counting (copy 2, reduce/add 3 arrays); "
        "OpenMP threads %d; GB/s = 1e9 B/s\n",
        o.min_bytes, o.max_bytes, omp_threads);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();

    // The target: Kokkos sum on float32 against STREAM add, same space, same size (best iterations, as STREAM).
    std::printf(
        "\n# Kokkos reduce (sum, float32) vs STREAM add (c = a + b), same execution space and size;\n"
        "# best iteration (STREAM's convention) and mean over the iterations\n");
    std::printf("# %8s  %12s  %12s  %12s  %7s  %12s  %12s  %7s\n", "space", "bytes/array", "kokkos best", "stream best",
                "ratio", "kokkos mean", "stream mean", "ratio");
    for (ExecBackend b : o.backends) {
      const std::string space(ExecBackendName(b));
      for (size_t bytes : *sizes) {
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
    for (char* p : {arrays.a, arrays.b, arrays.c}) std::free(p);
  }
  Kokkos::finalize();
  return code;
}

}  // namespace
}  // namespace bench
}  // namespace kcoll

int main(int argc, char** argv) { return kcoll::bench::Main(argc, argv); }
