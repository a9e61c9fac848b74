#include "bench/driver/collective_bench.h"

#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/env.h"
#include "bench/calibration/calibrate_in_run.h"
#include "bench/driver/aligned_start.h"
#include "bench/driver/bench_case.h"
#include "bench/driver/model_rounds.h"
#include "bench/driver/run_setup.h"
#include "bench/implementations/gloo_peer.h"
#include "bench/implementations/nccl_peer.h"
#include "bench/model/bandwidth.h"
#include "bench/options/launcher.h"
#include "bench/options/options.h"
#include "bench/options/sizes.h"
#include "bench/reports/json_report.h"
#include "bench/reports/results.h"
#include "bench/reports/table_report.h"
#include "collectives/communicator.h"
#include "collectives/kernels/backend.h"
#include "collectives/transport/mpi/host_ranks.h"

namespace kcoll {
namespace bench {
namespace {

int CoreCount() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
}

// `bazel run` starts the program in its runfiles tree; paths the user typed are relative to where they typed them.
std::string ResolvePath(const std::string& path) {
  const char* cwd = GetEnv("BUILD_WORKING_DIRECTORY");
  if (path.empty() || path[0] == '/' || cwd == nullptr || *cwd == '\0') return path;
  return absl::StrCat(cwd, "/", path);
}

ParseContext MakeParseContext() {
  ParseContext pc;
  pc.gloo_available = GlooAvailable();
  pc.nccl_available = NcclPeerAvailable();
  for (ExecBackend b : AvailableBackends()) pc.exec_available.emplace_back(ExecBackendName(b));
  return pc;
}

// Checks Google Benchmark's format flags, which it would otherwise reject only after the ranks started.
absl::Status CheckBenchmarkFormats(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    for (const char* flag : {"--benchmark_format=", "--benchmark_out_format="}) {
      if (!absl::StartsWith(a, flag)) continue;
      const std::string v = a.substr(std::strlen(flag));
      if (v != "console" && v != "json" && v != "csv") {
        return absl::InvalidArgumentError(
            absl::StrCat(std::string(flag, std::strlen(flag) - 1), " '", v, "': not one of console, json, csv"));
      }
    }
  }
  return absl::OkStatus();
}

bool HasArgPrefix(const std::vector<std::string>& args, const char* prefix) {
  for (const std::string& a : args) {
    if (absl::StartsWith(a, prefix)) return true;
  }
  return false;
}

char g_interrupt_message[4200];

void OnInterrupt(int) {
  const ssize_t ignored = write(STDERR_FILENO, g_interrupt_message, std::strlen(g_interrupt_message));
  (void)ignored;
  _exit(130);
}

void InstallInterruptHandler(const std::string& json_path) {
  std::snprintf(g_interrupt_message, sizeof(g_interrupt_message), "\n# interrupted: %s\n",
                json_path.empty() ? "the table above has every row measured so far"
                                  : absl::StrCat("every row measured so far is in ", json_path).c_str());
  struct sigaction sa {};
  sa.sa_handler = OnInterrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

// Prints on rank 0 only; every rank returns the same code.
int Fail(int rank, const std::string& message, int code) {
  if (rank == 0) std::fprintf(stderr, "error: %s\n", message.c_str());
  return code;
}

// Google Benchmark's flags; only rank 0 writes --benchmark_out, at a path resolved against where bazel ran.
void InitializeBenchmarkLibrary(int argc, char** argv, int rank) {
  std::vector<std::string> gb_args{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (rank != 0 && absl::StartsWith(a, "--benchmark_out")) continue;
    if (absl::StartsWith(a, "--benchmark_out=")) {
      gb_args.push_back("--benchmark_out=" + ResolvePath(a.substr(std::strlen("--benchmark_out="))));
      continue;
    }
    gb_args.push_back(a);
  }
  std::vector<char*> gb_argv;
  for (std::string& a : gb_args) gb_argv.push_back(a.data());
  int gb_argc = static_cast<int>(gb_argv.size());
  benchmark::Initialize(&gb_argc, gb_argv.data());
}

// Registers every case once per round: the whole list again per round, so that each case's rounds are spread over
// the run, and in size-major order, so that the implementations of a size run within seconds of each other.
void RegisterCases(BenchContext& ctx) {
  BenchContext* raw = &ctx;
  ctx.pooled.resize(ctx.cases.size());
  const std::vector<int> round_order = RoundOrder(ctx.cases, ctx.options.rounds);
  for (int round = 0; round < ctx.options.rounds; ++round) {
    for (int i : round_order) {
      const std::string name =
          ctx.options.rounds > 1 ? absl::StrCat(ctx.cases[i].name, "/round:", round + 1) : ctx.cases[i].name;
      benchmark::RegisterBenchmark(name.c_str(),
                                   [raw, i, round](benchmark::State& state) { RunCase(state, *raw, i, round); })
          ->UseManualTime()
          ->Iterations(ctx.options.iters)
          ->Unit(benchmark::kMicrosecond);
    }
  }
}

// Rank 0's reporters: the nccl-tests table on stdout (unless Google Benchmark's own format was asked for) and the
// JSON file. Collective: every rank learns whether the JSON file opened.
struct Reporters {
  std::unique_ptr<ResultSink> sink;
  NcclTableReporter table;
  std::unique_ptr<JsonReport> json;
};

// False on every rank when rank 0 could not open the JSON file (it has said why).
bool OpenReporters(const BenchContext& ctx, RunInfo info, bool gb_format, Reporters& r) {
  int json_failed = 0;
  if (ctx.rank == 0) {
    r.sink = std::make_unique<ResultSink>(std::move(info));
    if (!gb_format) r.sink->AddListener(&r.table);
    if (!ctx.options.json_path.empty()) {
      r.json = std::make_unique<JsonReport>(ctx.options.json_path);
      if (absl::Status s = r.json->Open(); !s.ok()) {
        std::fprintf(stderr, "error: %s\n", std::string(s.message()).c_str());
        json_failed = 1;
      }
      r.sink->AddListener(r.json.get());
    }
    InstallInterruptHandler(ctx.options.json_path);
  }
  MPI_Bcast(&json_failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return json_failed == 0;
}

// Rank 0: the notes on what was skipped, under the collective each names ("all_reduce: ...").
void AddNotes(ResultSink& sink, const std::vector<std::string>& notes, const std::vector<Collective>& collectives) {
  for (const std::string& n : notes) {
    const size_t colon = n.find(':');
    Collective c = collectives.front();
    if (absl::StatusOr<Collective> parsed = ParseCollective(n.substr(0, colon)); parsed.ok()) c = *parsed;
    sink.Note(c, "--algo", "kcoll", n.substr(colon + 2));
  }
}

// Rank 0 closes the reports; every rank returns the same exit code.
int Finish(BenchContext& ctx, Reporters& r) {
  if (r.sink && ctx.options.recalibrate > 0) {
    std::vector<ModelStateInfo> states;
    for (const ModelState& st : ctx.model.states)
      states.push_back({st.profile_path, st.probe_seconds * 1e6, st.measured});
    r.sink->SetModelStates(std::move(states));
  }
  int exit_code = (ctx.wrong > 0 || ctx.failures > 0) ? 1 : 0;
  if (r.sink) {
    r.sink->Finish();
    r.table.Flush();
    const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - ctx.report.start).count();
    std::fprintf(stderr, "[bench] done: %d of %zu cases measured in %.1f s; %lld wrong, %d failed\n",
                 ctx.report.cases_done, ctx.cases.size(), total, static_cast<long long>(ctx.wrong), ctx.failures);
    if (r.json && !r.json->status().ok()) {
      std::fprintf(stderr, "error: %s\n", r.json->status().ToString().c_str());
      exit_code = std::max(exit_code, 1);
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &exit_code, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return exit_code;
}

// One rank of the run: set up (run_setup.h), register the cases with Google Benchmark, run them, report.
int RunRanks(int argc, char** argv, const std::string& program, const std::vector<Collective>& collectives,
             const BenchOptions& parsed) {
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const std::vector<std::string> args(argv + 1, argv + argc);
  // Rank 0 speaks for the job on stdout (Google Benchmark would otherwise print, e.g., --benchmark_list_tests on
  // every rank); the other ranks keep stderr for their own failures.
  if (rank != 0 && std::freopen("/dev/null", "w", stdout) == nullptr) std::fprintf(stderr, "note: stdout kept\n");
  auto fail = [rank](const absl::Status& s) { return Fail(rank, std::string(s.message()), ExitCodeOf(s)); };
  if (absl::Status s = ValidateForRanks(parsed, nranks, LaunchedByBenchmark()); !s.ok()) return fail(s);
  InitializeBenchmarkLibrary(argc, argv, rank);

  auto ctx = std::make_unique<BenchContext>();
  ctx->options = parsed;
  ctx->rank = rank;
  ctx->nranks = nranks;
  ctx->buffers.device = parsed.exec == "cuda";
  std::string calibrate_summary;
  if (!parsed.calibrate_path.empty()) {
    if (rank == 0) std::fprintf(stderr, "[kcoll bench] --calibrate: measuring this machine's profile...\n");
    absl::Status measured =
        CalibrateIntoFile(MPI_COMM_WORLD, parsed.calibrate_path, parsed.ranks_per_node, *ParseExecBackend(parsed.exec),
                          CalibrationSweep(parsed), &calibrate_summary);
    if (!measured.ok()) return Fail(rank, std::string(measured.message()), 1);
    ctx->options.profile_path = parsed.calibrate_path;  // then everything reads it as --profile
  }
  const BenchOptions& o = ctx->options;
  absl::StatusOr<Communicators> communicators = MakeCommunicators(o);
  if (!communicators.ok()) return fail(communicators.status());
  Communicator& comm = *communicators->main;
  RunHeaderInputs header{program, collectives, &*communicators, {}, "", {argv, argv + argc}};
  absl::StatusOr<IdealBandwidth> ideal = ComputeIdealBandwidth(o, comm.topology(), calibrate_summary);
  if (!ideal.ok()) return fail(ideal.status());
  ctx->ideal_busbw_gbps = ideal->busbw_gbps;
  ctx->latency_floor_s = ideal->latency_floor_s;
  if (o.aligned_start) {
    ctx->start_spins = SpinWhileWaiting(ctx->comm);
    ctx->same_clock = HostCommunicator(ctx->comm);
  }
  header.ideal = *ideal;
  if (o.model) {
    absl::StatusOr<std::string> model_note = SetUpModel(*ctx, comm);
    if (!model_note.ok()) return fail(model_note.status());
    header.model_note = *model_note;
  }
  absl::StatusOr<std::vector<size_t>> sizes = MakeSizeList(o.min_bytes, o.max_bytes, o.step_factor, o.step_bytes);
  if (!sizes.ok()) return Fail(rank, std::string(sizes.status().message()), 2);
  std::vector<std::string> notes;
  AddImplementationsAndCases(*ctx, collectives, *communicators, *sizes, &notes);
  if (absl::Status s = ReserveBuffers(*ctx, comm); !s.ok()) return Fail(rank, std::string(s.message()), 1);

  Reporters reporters;
  const bool gb_format = HasArgPrefix(args, "--benchmark_format=");
  if (!OpenReporters(*ctx, MakeRunInfo(*ctx, header), gb_format, reporters)) return 2;
  ctx->report.sink = reporters.sink.get();
  // The table shows progress on a terminal; when stdout goes to a file or a pipe, stderr says how far the sweep is.
  // Under mpirun a rank's stdout is a pseudo-terminal whatever the user's is, so the launcher tells what it was.
  const char* tty = GetEnv("KCOLL_BENCH_STDOUT_IS_TTY");
  ctx->report.progress = rank == 0 && (gb_format || tty == nullptr || std::string(tty) != "1");
  if (o.timeout_s > 0) ctx->watchdog = std::make_unique<Watchdog>(o.timeout_s, rank);
  if (reporters.sink) {
    reporters.sink->Start();
    AddNotes(*reporters.sink, notes, collectives);
  }

  RegisterCases(*ctx);
  ctx->report.start = std::chrono::steady_clock::now();
  NullReporter null_reporter;
  benchmark::BenchmarkReporter* display = &null_reporter;
  if (rank == 0) display = gb_format ? nullptr : &reporters.table;
  benchmark::RunSpecifiedBenchmarks(display);
  benchmark::Shutdown();
  ReplayDeferred(*ctx);
  const int exit_code = Finish(*ctx, reporters);
  ctx->watchdog.reset();
  if (ctx->same_clock != MPI_COMM_NULL) MPI_Comm_free(&ctx->same_clock);
  ctx.reset();
  return exit_code;
}

}  // namespace

int CollectiveBenchMain(int argc, char** argv, const std::string& program, const std::vector<Collective>& collectives) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  const ParseContext pc = MakeParseContext();
  const bool under_mpi = StartedByMpiLauncher();
  const bool printer = !under_mpi || RankFromEnvironment() == 0;
  auto parsed = ParseBenchOptions(args, pc);
  absl::Status formats = CheckBenchmarkFormats(args);
  if (!parsed.ok() || !formats.ok()) {
    if (printer) {
      std::fprintf(stderr, "%s: %s\n", program.c_str(),
                   std::string(parsed.ok() ? formats.message() : parsed.status().message()).c_str());
      std::fprintf(stderr, "run with --help for the options\n");
    }
    return 2;
  }
  BenchOptions options = *parsed;
  if (options.help) {
    if (printer) std::printf("%s", Usage(program, pc).c_str());
    return 0;
  }
  options.json_path = ResolvePath(options.json_path);
  options.profile_path = ResolvePath(options.profile_path);
  options.calibrate_path = ResolvePath(options.calibrate_path);
  if (!options.profile_path.empty()) {
    if (auto p = LoadProfileBandwidths(options.profile_path); !p.ok()) {
      if (printer)
        std::fprintf(stderr, "%s: --profile: %s\n", program.c_str(), std::string(p.status().message()).c_str());
      return 2;
    }
  }

  if (!under_mpi) {
    if (LaunchedByBenchmark()) {
      std::fprintf(stderr, "%s: started by the benchmark's mpirun but no MPI rank is set in the environment\n",
                   program.c_str());
      return 2;
    }
    // Unknown --benchmark_* flags are reported here, before any rank starts.
    std::vector<std::string> copy(argv, argv + argc);
    std::vector<char*> cargv;
    for (std::string& a : copy) cargv.push_back(a.data());
    int cargc = static_cast<int>(cargv.size());
    benchmark::Initialize(&cargc, cargv.data());
    for (int i = 1; i < cargc; ++i) {
      if (absl::StartsWith(cargv[i], "--benchmark_")) {
        std::fprintf(stderr, "%s: unknown Google Benchmark flag '%s'\n", program.c_str(), cargv[i]);
        return 2;
      }
    }
    return LaunchSelf(options, args, CoreCount(), program);
  }

  MPI_Init(&argc, &argv);
  // Ranks may outnumber cores on purpose: Kokkos' warning about it would only repeat the header.
  InitializeKokkosQuietly(argc, argv);
  int code = RunRanks(argc, argv, program, collectives, options);
  Kokkos::finalize();
  MPI_Finalize();
  return code;
}

}  // namespace bench
}  // namespace kcoll
