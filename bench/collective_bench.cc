#include "bench/collective_bench.h"

#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "bench/bandwidth.h"
#include "bench/bench_case.h"
#include "bench/calibrate_in_run.h"
#include "bench/copy_probe.h"
#include "bench/gloo_peer.h"
#include "bench/json_report.h"
#include "bench/kcoll_implementation.h"
#include "bench/launcher.h"
#include "bench/mpi_peer.h"
#include "bench/options.h"
#include "bench/results.h"
#include "bench/sizes.h"
#include "bench/table_report.h"
#include "collectives/algorithms/registry.h"
#include "collectives/auto_choice.h"
#include "collectives/communicator.h"
#include "collectives/kernels/backend.h"
#include "models/machine.h"
#include "models/model_check.h"

extern "C" char** environ;

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
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (path.empty() || path[0] == '/' || cwd == nullptr || *cwd == '\0') return path;
  return absl::StrCat(cwd, "/", path);
}

ParseContext MakeParseContext() {
  ParseContext pc;
  pc.gloo_available = GlooAvailable();
  for (ExecBackend b : AvailableBackends()) {
    if (b != ExecBackend::kCuda) pc.exec_available.emplace_back(ExecBackendName(b));
  }
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

std::string Versions() {
  char mpi[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(mpi, &len);
  std::string m(mpi, len);
  m = m.substr(0, m.find_first_of(",\n"));
  const int kv = KOKKOS_VERSION;
  return absl::StrCat(m, ", Kokkos ", kv / 10000, ".", kv / 100 % 100, ".", kv % 100,
                      GlooAvailable() ? ", Gloo peer built in" : ", no Gloo peer");
}

std::vector<std::string> RelevantEnvironment() {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const absl::string_view v(*e);
    // Settings that shape the run; not Open MPI's own runtime bookkeeping (job ids, session directories, the
    // addresses of its daemons).
    bool runtime = false;
    for (const char* internal :
         {"OMPI_MCA_orte_", "OMPI_MCA_ess", "OMPI_MCA_pmix", "OMPI_MCA_initial_wdir", "OMPI_MCA_shmem_RUNTIME"}) {
      runtime = runtime || absl::StartsWith(v, internal);
    }
    if (!runtime &&
        (absl::StartsWith(v, "KCOLL_") || absl::StartsWith(v, "OMP_") || absl::StartsWith(v, "OMPI_MCA_"))) {
      out.emplace_back(v);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<RankInfo> GatherRanks(const Topology& topology, MPI_Comm comm, int rank, int nranks) {
  struct Wire {
    int pid;
    char host[256];
  } mine{};
  mine.pid = static_cast<int>(getpid());
  gethostname(mine.host, sizeof(mine.host) - 1);
  std::vector<Wire> all(rank == 0 ? nranks : 0);
  MPI_Gather(&mine, sizeof(Wire), MPI_BYTE, all.data(), sizeof(Wire), MPI_BYTE, 0, comm);
  std::vector<RankInfo> out;
  for (int r = 0; r < static_cast<int>(all.size()); ++r) {
    out.push_back(RankInfo{r, topology.node_of[r], all[r].pid, all[r].host});
  }
  return out;
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

// The implementations to run for `collective`, peers first (so that kcoll rows can show their ratio to MPI).
// A communicator whose kcoll rows run beside the plain ones, named '<algorithm> <label>'.
struct ExtraCommunicator {
  std::unique_ptr<Communicator> comm;
  std::string label;  // "transport=mpi", "timeout=30s"
};

void AddImplementations(BenchContext& ctx, Collective collective, Communicator* comm,
                        const std::vector<ExtraCommunicator>& extras, std::unique_ptr<Implementation>* gloo,
                        std::vector<std::pair<Collective, int>>* order, std::vector<std::string>* notes) {
  const AlgoSelection& sel = ctx.options.algos;
  auto add = [&](std::unique_ptr<Implementation> impl) {
    ctx.implementations.push_back(std::move(impl));
    order->emplace_back(collective, static_cast<int>(ctx.implementations.size()) - 1);
  };
  if (sel.all || sel.mpi) add(MakeMpiPeer(collective, ctx.comm));
  if (collective == Collective::kAllReduce && (sel.all || sel.gloo) && gloo != nullptr && *gloo != nullptr) {
    add(std::move(*gloo));
  }
  const std::vector<Algorithm> registered = AlgorithmsFor(collective);
  std::vector<Algorithm> wanted;
  if (sel.all) {
    // `direct` needs registered buffers: with --registered only.
    wanted = ctx.options.registered ? registered : TransferAlgorithmsFor(collective);
    if (wanted.empty()) wanted.push_back(Algorithm::kAuto);  // shows what the Communicator says about it
  }
  for (Algorithm a : sel.algorithms) {
    const bool ok = a == Algorithm::kAuto || std::find(registered.begin(), registered.end(), a) != registered.end();
    if (!ok) {
      std::vector<std::string> names;
      for (Algorithm r : registered) names.emplace_back(AlgorithmName(r));
      notes->push_back(absl::StrCat(CollectiveName(collective), ": --algo ", AlgorithmName(a),
                                    " skipped: not registered for ", CollectiveName(collective),
                                    " (registered: ", names.empty() ? "none yet" : absl::StrJoin(names, ", "), ")"));
      continue;
    }
    if (std::find(wanted.begin(), wanted.end(), a) == wanted.end()) wanted.push_back(a);
  }
  for (Algorithm a : wanted) {
    const bool direct = a == Algorithm::kDirect;
    if (direct && !comm->CanRunZeroCopy()) {
      notes->push_back(
          absl::StrCat(CollectiveName(collective),
                       ": direct skipped: it needs the first --transport to be shm (or auto) on one node"));
      continue;
    }
    add(MakeKcollImplementation(comm, a, "", direct));
    if (ctx.options.registered && a == Algorithm::kAuto) add(MakeKcollImplementation(comm, a, "", true));
    // Registered buffers belong to the communicator that allocated them: the first one.
    if (direct) continue;
    for (const ExtraCommunicator& extra : extras) add(MakeKcollImplementation(extra.comm.get(), a, extra.label));
  }
}

std::string CaseName(const Case& c, const Implementation& impl) {
  std::string name =
      absl::StrCat(CollectiveName(c.collective), "/", impl.name(), "/", NcclTypeName(c.type), "/", NcclOpName(c.op));
  if (c.root >= 0) absl::StrAppend(&name, "/root:", c.root);
  absl::StrAppend(&name, "/", c.layout.bytes, "/", c.in_place ? "in_place" : "out_of_place");
  return name;
}

int RunRanks(int argc, char** argv, const std::string& program, const std::vector<Collective>& collectives,
             const BenchOptions& parsed) {
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const std::vector<std::string> args(argv + 1, argv + argc);
  // Rank 0 speaks for the job on stdout (Google Benchmark would otherwise print, e.g., --benchmark_list_tests on
  // every rank); the other ranks keep stderr for their own failures.
  if (rank != 0 && std::freopen("/dev/null", "w", stdout) == nullptr) std::fprintf(stderr, "note: stdout kept\n");
  if (absl::Status s = ValidateForRanks(parsed, nranks, LaunchedByBenchmark()); !s.ok()) {
    return Fail(rank, std::string(s.message()), 2);
  }

  // Google Benchmark's flags; only rank 0 writes --benchmark_out.
  std::vector<std::string> gb_args{argv[0]};
  for (const std::string& a : args) {
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

  auto ctx = std::make_unique<BenchContext>();
  ctx->options = parsed;
  std::string calibrate_summary;
  if (!parsed.calibrate_path.empty()) {
    if (rank == 0) std::fprintf(stderr, "[kcoll bench] --calibrate: measuring this machine's profile...\n");
    absl::Status measured = CalibrateIntoFile(MPI_COMM_WORLD, parsed.calibrate_path, parsed.ranks_per_node,
                                              *ParseExecBackend(parsed.exec), &calibrate_summary);
    if (!measured.ok()) return Fail(rank, std::string(measured.message()), 1);
    ctx->options.profile_path = parsed.calibrate_path;  // then everything reads it as --profile
  }
  ctx->rank = rank;
  ctx->nranks = nranks;
  const BenchOptions& o = ctx->options;

  CommunicatorOptions copts;
  copts.backend = *ParseExecBackend(o.exec);
  copts.ranks_per_node = o.ranks_per_node;
  copts.profile_path = o.profile_path;  // auto chooses with the same profile the ideal busbw and --model use
  auto transport_of = [](const std::string& name) {
    return name == "auto" ? std::optional<TransportKind>() : std::optional<TransportKind>(*ParseTransportKind(name));
  };
  copts.transport = transport_of(o.transports.front());
  // --with_timeout compares waits with and without a timeout: the first communicator then has none, whatever
  // KCOLL_TIMEOUT says.
  if (o.with_timeout.has_value()) copts.timeout = absl::ZeroDuration();
  auto comm_or = Communicator::Create(MPI_COMM_WORLD, copts);
  if (!comm_or.ok()) return Fail(rank, absl::StrCat("Communicator::Create: ", comm_or.status().ToString()), 1);
  std::unique_ptr<Communicator> comm = std::move(*comm_or);
  std::vector<ExtraCommunicator> extras;
  for (size_t i = 1; i < o.transports.size(); ++i) {
    CommunicatorOptions other = copts;
    other.transport = transport_of(o.transports[i]);
    auto made = Communicator::Create(MPI_COMM_WORLD, other);
    if (!made.ok()) {
      return Fail(rank, absl::StrCat("--transport ", o.transports[i], ": ", made.status().ToString()), 1);
    }
    extras.push_back({std::move(*made), absl::StrCat("transport=", o.transports[i])});
  }
  const bool timed = o.with_timeout.has_value();
  if (timed) {
    copts.timeout = *o.with_timeout;
    auto made = Communicator::Create(MPI_COMM_WORLD, copts);
    if (!made.ok()) return Fail(rank, absl::StrCat("Communicator::Create: ", made.status().ToString()), 1);
    extras.push_back({std::move(*made), absl::StrCat("timeout=", absl::FormatDuration(*o.with_timeout))});
  }
  const Topology& topology = comm->topology();
  const int rpn = topology.uniform_ranks_per_node() > 0 ? topology.uniform_ranks_per_node() : nranks;

  // The machine's ideal busbw.
  double intra = o.intra_bw_gbps, inter = o.inter_bw_gbps;
  std::string ideal_note;
  if (!o.profile_path.empty()) {
    auto profile = LoadProfileBandwidths(o.profile_path);
    if (!profile.ok()) return Fail(rank, std::string(profile.status().message()), 2);
    intra = profile->intra_gbps;
    inter = profile->inter_gbps;
    ideal_note = calibrate_summary.empty() ? absl::StrCat("profile ", o.profile_path, ": ")
                                           : absl::StrCat(calibrate_summary, ": ");
  }
  if (intra <= 0 && topology.nnodes == 1 && nranks > 1) {
    // One node and no bandwidth given: the memory-bound limit, measured now, so that `eff` is never N/A.
    auto copy = MeasureCopyBandwidth(MPI_COMM_WORLD);
    if (!copy.ok()) return Fail(rank, std::string(copy.status().message()), 1);
    intra = copy->gbps_per_rank;
    ideal_note = absl::StrCat(copy->Describe(nranks), "; ");
  }
  if (intra > 0) {
    auto ideal = IdealBusBwGBps({intra, inter, rpn, topology.nnodes});
    if (ideal.ok()) {
      ctx->ideal_busbw_gbps = *ideal;
      absl::StrAppend(&ideal_note, "intra ", intra, " GB/s",
                      topology.nnodes > 1 ? absl::StrCat(", inter ", inter, " GB/s") : "", ", ", topology.nnodes,
                      " node(s) x ", rpn, " ranks");
    } else {
      absl::StrAppend(&ideal_note, "not computed: ", ideal.status().message());
    }
  } else {
    ideal_note = "give --intra_bw (and --inter_bw on several nodes) or --profile for ideal busbw and efficiency";
  }

  // --model: the communicator's own cost model (the one auto chooses with).
  std::string model_note;
  if (o.model) {
    const AutoChoice& choice = comm->auto_choice();
    auto check = models::ModelCheck::Create(ModelTopology(topology), choice.profile(), ModelCostOptions());
    if (!check.ok()) return Fail(rank, absl::StrCat("--model: ", check.status().message()), 2);
    ctx->kcoll = comm.get();
    auto probe = LinkProbe::Create(MPI_COMM_WORLD, topology);
    if (!probe.ok()) return Fail(rank, absl::StrCat("--model: link probe: ", probe.status().message()), 1);
    ctx->probe = *std::move(probe);
    ctx->states.push_back(
        {*std::move(check), ctx->probe->ProfileSeconds(choice.profile()), o.profile_path, "at the start"});
    ctx->recalibrations_left = o.recalibrate;
    const models::Profile& p = choice.profile();
    model_note = absl::StrFormat(
        "alpha-beta (models/cost_model.h) on %s; profile %s: intra alpha %.3g us, %.3g GB/s; inter alpha %.3g us, "
        "%.3g GB/s; gamma %.3g GB/s; error = 100 (model - time) / time",
        models::TopologyToString(ModelTopology(topology)), choice.profile_source(), p.intra.alpha_s * 1e6,
        p.intra.BytesPerSecond() / 1e9, p.inter.alpha_s * 1e6, p.inter.BytesPerSecond() / 1e9,
        p.gamma_s_per_byte > 0 ? 1e-9 / p.gamma_s_per_byte : 0.0);
  }

  // Sizes and cases.
  auto sizes = MakeSizeList(o.min_bytes, o.max_bytes, o.step_factor, o.step_bytes);
  if (!sizes.ok()) return Fail(rank, std::string(sizes.status().message()), 2);

  std::unique_ptr<Implementation> gloo;
  std::vector<std::string> notes;
  const bool want_gloo =
      std::find(collectives.begin(), collectives.end(), Collective::kAllReduce) != collectives.end() &&
      ((o.algos.all && GlooAvailable()) || o.algos.gloo);
  if (want_gloo) {
    auto g = MakeGlooPeer(MPI_COMM_WORLD);
    if (g.ok()) {
      gloo = std::move(*g);
    } else {
      notes.push_back(absl::StrCat("all_reduce: gloo peer skipped: ", g.status().message()));
      if (o.algos.gloo) ++ctx->failures;
    }
  }
  std::vector<std::pair<Collective, int>> order;
  for (Collective c : collectives) AddImplementations(*ctx, c, comm.get(), extras, &gloo, &order, &notes);

  std::vector<int> roots;
  if (o.root.has_value()) {
    roots.push_back(*o.root);
  } else {
    for (int r = 0; r < nranks; ++r) roots.push_back(r);
  }
  for (const auto& [collective, impl_index] : order) {
    for (DataType type : o.types) {
      std::vector<std::optional<ReduceOp>> ops;
      if (Reduces(collective)) {
        for (ReduceOp op : o.ops) ops.emplace_back(op);
      } else {
        ops.emplace_back(std::nullopt);
      }
      for (const std::optional<ReduceOp>& op : ops) {
        for (int root : IsRooted(collective) ? roots : std::vector<int>{-1}) {
          for (size_t bytes : *sizes) {
            for (bool in_place : {false, true}) {
              Case c;
              c.implementation = impl_index;
              c.collective = collective;
              c.type = type;
              c.op = op;
              c.root = root;
              c.layout = MakeLayout(collective, bytes, DataTypeSize(type), nranks);
              c.in_place = in_place;
              c.name = CaseName(c, *ctx->implementations[impl_index]);
              ctx->cases.push_back(c);
            }
          }
        }
      }
    }
  }
  size_t send_bytes = 0, recv_bytes = 0;
  BufferBytes(*ctx, &send_bytes, &recv_bytes);
  absl::Status alloc = ctx->send_buffer.Reserve(send_bytes);
  if (alloc.ok()) alloc = ctx->recv_buffer.Reserve(recv_bytes);
  int alloc_failed = alloc.ok() ? 0 : 1;
  MPI_Allreduce(MPI_IN_PLACE, &alloc_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (alloc_failed) return Fail(rank, absl::StrCat("buffers: ", alloc.ToString()), 1);
  const bool any_registered = std::any_of(ctx->implementations.begin(), ctx->implementations.end(),
                                          [](const std::unique_ptr<Implementation>& i) { return i->registered(); });
  if (any_registered) {
    // Collective, and agreed: fails on every rank alike.
    auto send = comm->Allocate(std::max<size_t>(send_bytes, 64));
    if (!send.ok()) return Fail(rank, absl::StrCat("registered buffers: ", send.status().ToString()), 1);
    auto recv = comm->Allocate(std::max<size_t>(recv_bytes, 64));
    if (!recv.ok()) return Fail(rank, absl::StrCat("registered buffers: ", recv.status().ToString()), 1);
    ctx->registered_send = static_cast<char*>(*send);
    ctx->registered_recv = static_cast<char*>(*recv);
  }

  // Reporting (rank 0).
  RunInfo info;
  info.program = program;
  info.collectives = collectives;
  info.min_bytes = o.min_bytes;
  info.max_bytes = o.max_bytes;
  info.step_factor = o.step_factor;
  info.step_bytes = o.step_bytes;
  info.warmup_iters = o.warmup_iters;
  info.iters = o.iters;
  info.rounds = o.rounds;
  info.agg_iters = o.agg_iters;
  info.check = o.check;
  info.per_iter_timing = o.per_iter_timing;
  info.time_across = TimeAcrossRanksName(o.time_across);
  info.time_across_code = static_cast<int>(o.time_across);
  info.nranks = nranks;
  info.ranks_per_node = rpn;
  info.nodes = topology.nnodes;
  info.emulated_nodes = topology.emulated;
  info.exec = o.exec;
  const char* omp = std::getenv("OMP_NUM_THREADS");
  info.exec_note = o.exec == "serial"
                       ? "Kokkos Serial: one thread per rank, the ranks fill the cores; --exec openmp for threads"
                       : absl::StrCat("Kokkos OpenMP: ", omp != nullptr ? omp : "all", " thread(s) per rank");
  info.transport_notes.push_back(absl::StrCat("kcoll rows: ", comm->execution()));
  for (const ExtraCommunicator& extra : extras) {
    info.transport_notes.push_back(absl::StrCat("rows '<algorithm> ", extra.label, "': ", extra.comm->execution()));
  }
  if (timed) {
    info.timeout_note = absl::StrCat("rows named '<algorithm> timeout=", absl::FormatDuration(*o.with_timeout),
                                     "' run on a communicator whose waits poll under that timeout; the other kcoll "
                                     "rows wait without one (MPI_Waitall)");
  } else if (comm->timeout().timeout != absl::InfiniteDuration()) {
    info.timeout_note = absl::StrCat("every kcoll wait polls under a ", absl::FormatDuration(comm->timeout().timeout),
                                     " timeout (", comm->timeout().source, ")");
  }
  const char* launch = std::getenv("KCOLL_BENCH_LAUNCH");
  info.launch = LaunchedByBenchmark() && launch != nullptr ? launch : "started by an outside mpirun";
  info.ranks = GatherRanks(topology, MPI_COMM_WORLD, rank, nranks);
  info.ideal_busbw_gbps = ctx->ideal_busbw_gbps;
  info.ideal_note = ideal_note;
  info.model = o.model;
  info.model_note = model_note;
  info.intra_bw_gbps = intra;
  info.inter_bw_gbps = inter;
  info.args.assign(argv, argv + argc);
  info.env = RelevantEnvironment();
  info.start_time = NowString();
  info.versions = Versions();
  info.cores = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));  // a bound rank sees one core: count the machine's
  double load[1];
  if (getloadavg(load, 1) == 1) info.load_average = load[0];

  std::unique_ptr<ResultSink> sink;
  NcclTableReporter table;
  std::unique_ptr<JsonReport> json;
  const bool gb_format = HasArgPrefix(args, "--benchmark_format=");
  int json_failed = 0;
  if (rank == 0) {
    sink = std::make_unique<ResultSink>(info);
    if (!gb_format) sink->AddListener(&table);
    if (!o.json_path.empty()) {
      json = std::make_unique<JsonReport>(o.json_path);
      if (absl::Status s = json->Open(); !s.ok()) {
        std::fprintf(stderr, "error: %s\n", std::string(s.message()).c_str());
        json_failed = 1;
      }
      sink->AddListener(json.get());
    }
    InstallInterruptHandler(o.json_path);
  }
  MPI_Bcast(&json_failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (json_failed) return 2;
  ctx->sink = sink.get();
  // The table shows progress on a terminal; when stdout goes to a file or a pipe, stderr says how far the sweep is.
  // Under mpirun a rank's stdout is a pseudo-terminal whatever the user's is, so the launcher tells what it was.
  const char* tty = std::getenv("KCOLL_BENCH_STDOUT_IS_TTY");
  ctx->progress = rank == 0 && (gb_format || tty == nullptr || std::string(tty) != "1");
  if (o.timeout_s > 0) ctx->watchdog = std::make_unique<Watchdog>(o.timeout_s, rank);
  if (sink) {
    sink->Start();
    for (const std::string& n : notes) {
      const size_t colon = n.find(':');
      Collective c = collectives.front();
      if (auto parsed_c = ParseCollective(n.substr(0, colon)); parsed_c.ok()) c = *parsed_c;
      sink->Note(c, "--algo", "kcoll", n.substr(colon + 2));
    }
  }

  BenchContext* raw = ctx.get();
  ctx->pooled.resize(ctx->cases.size());
  // --rounds: the whole list again per round, so that each case's rounds are spread over the run, and in size-major
  // order, so that the implementations of a size run within seconds of each other.
  const std::vector<int> round_order = RoundOrder(ctx->cases, o.rounds);
  for (int round = 0; round < o.rounds; ++round) {
    for (int i : round_order) {
      const std::string name =
          o.rounds > 1 ? absl::StrCat(ctx->cases[i].name, "/round:", round + 1) : ctx->cases[i].name;
      benchmark::RegisterBenchmark(name.c_str(),
                                   [raw, i, round](benchmark::State& state) { RunCase(state, *raw, i, round); })
          ->UseManualTime()
          ->Iterations(o.iters)
          ->Unit(benchmark::kMicrosecond);
    }
  }
  ctx->start = std::chrono::steady_clock::now();
  NullReporter null_reporter;
  if (rank == 0) {
    benchmark::RunSpecifiedBenchmarks(gb_format ? nullptr : &table);
  } else {
    benchmark::RunSpecifiedBenchmarks(&null_reporter);
  }
  benchmark::Shutdown();
  ReplayDeferred(*ctx);
  if (sink && o.recalibrate > 0) {
    std::vector<ModelStateInfo> states;
    for (const ModelState& st : ctx->states) states.push_back({st.profile_path, st.probe_seconds * 1e6, st.measured});
    sink->SetModelStates(std::move(states));
  }

  int exit_code = (ctx->wrong > 0 || ctx->failures > 0) ? 1 : 0;
  if (sink) {
    sink->Finish();
    table.Flush();
    const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - ctx->start).count();
    std::fprintf(stderr, "[bench] done: %d of %zu cases measured in %.1f s; %lld wrong, %d failed\n", ctx->cases_done,
                 ctx->cases.size(), total, static_cast<long long>(ctx->wrong), ctx->failures);
    if (json && !json->status().ok()) {
      std::fprintf(stderr, "error: %s\n", json->status().ToString().c_str());
      exit_code = std::max(exit_code, 1);
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &exit_code, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  ctx->watchdog.reset();
  ctx.reset();
  comm.reset();
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
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) {
      std::fprintf(stderr, "%s: cannot find my own executable to start the ranks\n", program.c_str());
      return 2;
    }
    self[n] = '\0';
    return ExecLaunchPlan(PlanLaunch(options, MpirunPath(), self, args, CoreCount()));
  }

  MPI_Init(&argc, &argv);
  // Ranks may outnumber cores on purpose: Kokkos' warning about it would only repeat the header.
  std::vector<char*> kokkos_argv(argv, argv + argc);
  char disable_warnings[] = "--kokkos-disable-warnings";
  kokkos_argv.push_back(disable_warnings);
  int kokkos_argc = static_cast<int>(kokkos_argv.size());
  Kokkos::initialize(kokkos_argc, kokkos_argv.data());
  int code = RunRanks(argc, argv, program, collectives, options);
  Kokkos::finalize();
  MPI_Finalize();
  return code;
}

}  // namespace bench
}  // namespace kcoll
