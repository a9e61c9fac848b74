#include "bench/driver/run_setup.h"

#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/cache_size.h"
#include "base/env.h"
#include "bench/data/device_memory.h"
#include "bench/data/layout.h"
#include "bench/implementations/gloo_peer.h"
#include "bench/implementations/kcoll_implementation.h"
#include "bench/implementations/latency_floor_row.h"
#include "bench/implementations/mpi_peer.h"
#include "bench/implementations/nccl_peer.h"
#include "bench/implementations/peer_copy_row.h"
#include "bench/model/bandwidth.h"
#include "bench/model/copy_probe.h"
#include "bench/model/latency_probe.h"
#include "bench/model/link_probe.h"
#include "bench/options/launcher.h"
#include "bench/reports/json_report.h"
#include "choice/auto_choice.h"
#include "collectives/algorithms/registry.h"
#include "collectives/kernels/backend.h"
#include "models/analysis/model_check.h"
#include "models/machine.h"

extern "C" char** environ;

namespace kcoll {
namespace bench {
namespace {

// Which machine a run comes from, for its header: the host name, /proc/cpuinfo's model name and the last-level cache,
// so that a table pasted elsewhere still says where it was measured. Parts the system does not tell are left out.
std::string DescribeMachine() {
  char host[256] = {0};
  std::string out = gethostname(host, sizeof(host) - 1) == 0 ? std::string(host) : std::string("?");
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  std::string model;
  while (model.empty() && std::getline(cpuinfo, line)) {
    if (absl::StartsWith(line, "model name")) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) model = std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
    }
  }
  if (!model.empty()) absl::StrAppend(&out, ": ", model);
  const size_t l3 = CacheBytes(3);
  if (l3 > 0) absl::StrAppend(&out, model.empty() ? ": " : ", ", "L3 ", absl::StrFormat("%.1f MiB", l3 / 1048576.0));
  return out;
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

std::vector<RankInfo> GatherRanks(const Topology& topology, MPI_Comm comm, int rank, int nranks, bool device) {
  struct Wire {
    int pid;
    int device;
    char host[256];
  } mine{};
  mine.pid = static_cast<int>(getpid());
  mine.device = device ? CurrentDevice() : -1;
  gethostname(mine.host, sizeof(mine.host) - 1);
  std::vector<Wire> all(rank == 0 ? nranks : 0);
  MPI_Gather(&mine, sizeof(Wire), MPI_BYTE, all.data(), sizeof(Wire), MPI_BYTE, 0, comm);
  std::vector<RankInfo> out;
  for (int r = 0; r < static_cast<int>(all.size()); ++r) {
    out.push_back(RankInfo{r, topology.node_of[r], all[r].pid, all[r].host, all[r].device});
  }
  return out;
}

// The implementations to run for `collective`, peers first, each appended to `order` with its index.
void AddImplementations(BenchContext& ctx, Collective collective, Communicator* comm,
                        const std::vector<ExtraCommunicator>& extras, std::unique_ptr<Implementation>* gloo,
                        std::unique_ptr<Implementation>* floor, std::unique_ptr<Implementation>* copy,
                        const std::shared_ptr<NcclPeerComm>& nccl, std::vector<std::pair<Collective, int>>* order,
                        std::vector<std::string>* notes) {
  const AlgoSelection& sel = ctx.options.algos;
  auto add = [&](std::unique_ptr<Implementation> impl) {
    ctx.implementations.push_back(std::move(impl));
    order->emplace_back(collective, static_cast<int>(ctx.implementations.size()) - 1);
  };
  // Device buffers (--exec cuda): NCCL's collectives are the vendor rows; MPI's would need a CUDA-aware MPI.
  if ((sel.all || sel.mpi) && !ctx.buffers.device) add(MakeMpiPeer(collective, ctx.comm));
  if ((sel.all || sel.nccl) && nccl != nullptr) add(MakeNcclPeer(collective, nccl));
  if (collective == Collective::kAllReduce && sel.gloo && gloo != nullptr && *gloo != nullptr) {
    add(std::move(*gloo));
  }
  if (collective == Collective::kAllReduce && floor != nullptr && *floor != nullptr) add(std::move(*floor));
  if (collective == Collective::kAllReduce && copy != nullptr && *copy != nullptr) add(std::move(*copy));
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
    if (collective == Collective::kAllReduce && comm->numerics() != Numerics::kFast && a != Algorithm::kAuto &&
        a != Algorithm::kInline) {
      notes->push_back(absl::StrCat(CollectiveName(collective), ": ", AlgorithmName(a),
                                    " skipped: it cannot honour --numerics ", NumericsName(comm->numerics()),
                                    " (auto rows only)"));
      continue;
    }
    const bool direct = a == Algorithm::kDirect;
    if (direct && ctx.buffers.device) {
      notes->push_back(
          absl::StrCat(CollectiveName(collective), ": direct skipped: registered buffers are host memory"));
      continue;
    }
    if (direct && !comm->CanRunZeroCopy()) {
      notes->push_back(
          absl::StrCat(CollectiveName(collective),
                       ": direct skipped: it needs the first --transport to be shm (or auto) on one node"));
      continue;
    }
    add(MakeKcollImplementation(comm, a, "", direct));
    if (ctx.options.registered && !ctx.buffers.device && a == Algorithm::kAuto) {
      add(MakeKcollImplementation(comm, a, "", true));
    }
    // Registered buffers belong to the communicator that allocated them: the first one.
    if (direct) continue;
    for (const ExtraCommunicator& extra : extras) {
      if (extra.auto_only && a != Algorithm::kAuto) continue;
      add(MakeKcollImplementation(extra.comm.get(), a, extra.label));
    }
  }
}

// Ranks per node as the ideal busbw and the report's header count them: every rank when the nodes differ in size.
int RanksPerNodeOrAll(const Topology& topology) {
  const int uniform = topology.uniform_ranks_per_node();
  return uniform > 0 ? uniform : topology.nranks;
}

std::optional<TransportKind> TransportOf(const std::string& name) {
  return name == "auto" ? std::optional<TransportKind>() : std::optional<TransportKind>(*ParseTransportKind(name));
}

}  // namespace

int ExitCodeOf(const absl::Status& status) { return status.code() == absl::StatusCode::kInvalidArgument ? 2 : 1; }

absl::StatusOr<Communicators> MakeCommunicators(const BenchOptions& o) {
  CommunicatorOptions copts;
  copts.backend = *ParseExecBackend(o.exec);
  copts.ranks_per_node = o.ranks_per_node;
  copts.profile_path = o.profile_path;  // auto chooses with the same profile the ideal busbw and --model use
  copts.transport = TransportOf(o.transports.front());
  copts.numerics = o.numerics.front();
  // --with_timeout compares waits with and without a timeout: the first communicator then has none, whatever
  // KCOLL_TIMEOUT says.
  if (o.with_timeout.has_value()) copts.timeout = absl::ZeroDuration();
  Communicators out;
  absl::StatusOr<std::unique_ptr<Communicator>> made = Communicator::Create(MPI_COMM_WORLD, copts);
  if (!made.ok()) return absl::InternalError(absl::StrCat("Communicator::Create: ", made.status().ToString()));
  out.main = *std::move(made);
  for (size_t i = 1; i < o.transports.size(); ++i) {
    CommunicatorOptions other = copts;
    other.transport = TransportOf(o.transports[i]);
    made = Communicator::Create(MPI_COMM_WORLD, other);
    if (!made.ok()) {
      return absl::InternalError(absl::StrCat("--transport ", o.transports[i], ": ", made.status().ToString()));
    }
    out.extras.push_back({*std::move(made), absl::StrCat("transport=", o.transports[i])});
  }
  for (size_t i = 1; i < o.numerics.size(); ++i) {
    CommunicatorOptions other = copts;
    other.numerics = o.numerics[i];
    made = Communicator::Create(MPI_COMM_WORLD, other);
    if (!made.ok()) return absl::InternalError(absl::StrCat("--numerics: ", made.status().ToString()));
    out.extras.push_back(
        {*std::move(made), absl::StrCat("numerics=", NumericsName(o.numerics[i])), o.numerics[i] != Numerics::kFast});
  }
  if (o.with_timeout.has_value()) {
    copts.timeout = *o.with_timeout;
    made = Communicator::Create(MPI_COMM_WORLD, copts);
    if (!made.ok()) return absl::InternalError(absl::StrCat("Communicator::Create: ", made.status().ToString()));
    out.extras.push_back({*std::move(made), absl::StrCat("timeout=", absl::FormatDuration(*o.with_timeout))});
  }
  return out;
}

absl::StatusOr<IdealBandwidth> ComputeIdealBandwidth(const BenchOptions& o, const Topology& topology,
                                                     const std::string& calibrate_summary) {
  const int nranks = topology.nranks;
  const int rpn = RanksPerNodeOrAll(topology);
  IdealBandwidth ideal;
  ideal.intra_gbps = o.intra_bw_gbps;
  ideal.inter_gbps = o.inter_bw_gbps;
  if (!o.profile_path.empty()) {
    absl::StatusOr<ProfileBandwidths> profile = LoadProfileBandwidths(o.profile_path);
    if (!profile.ok()) return absl::InvalidArgumentError(profile.status().message());
    ideal.intra_gbps = profile->intra_gbps;
    ideal.inter_gbps = profile->inter_gbps;
    ideal.note = calibrate_summary.empty() ? absl::StrCat("profile ", o.profile_path, ": ")
                                           : absl::StrCat(calibrate_summary, ": ");
  }
  if (ideal.intra_gbps <= 0 && topology.nnodes == 1 && nranks > 1) {
    // One node and no bandwidth given: the memory-bound limit, measured now, so that `eff` is never N/A.
    absl::StatusOr<CopyBandwidth> copy = MeasureCopyBandwidth(MPI_COMM_WORLD);
    if (!copy.ok()) return absl::InternalError(copy.status().message());
    ideal.intra_gbps = copy->gbps_per_rank;
    ideal.note = absl::StrCat(copy->Describe(nranks), "; ");
  }
  if (topology.nnodes == 1 && nranks > 1) {
    // The other end: no call on these ranks finishes sooner than one exchange of cache lines.
    absl::StatusOr<LatencyFloor> floor = MeasureLatencyFloor(MPI_COMM_WORLD);
    if (!floor.ok()) return absl::InternalError(floor.status().message());
    ideal.latency_floor_s = floor->seconds;
    absl::StrAppend(&ideal.note, floor->Describe(nranks), "; ");
  }
  if (ideal.intra_gbps <= 0) {
    ideal.note = "give --intra_bw (and --inter_bw on several nodes) or --profile for ideal busbw and efficiency";
    return ideal;
  }
  absl::StatusOr<double> busbw = IdealBusBwGBps({ideal.intra_gbps, ideal.inter_gbps, rpn, topology.nnodes});
  if (busbw.ok()) {
    ideal.busbw_gbps = *busbw;
    absl::StrAppend(&ideal.note, "intra ", ideal.intra_gbps, " GB/s",
                    topology.nnodes > 1 ? absl::StrCat(", inter ", ideal.inter_gbps, " GB/s") : "", ", ",
                    topology.nnodes, " node(s) x ", rpn, " ranks");
  } else {
    absl::StrAppend(&ideal.note, "not computed: ", busbw.status().message());
  }
  return ideal;
}

absl::StatusOr<std::string> SetUpModel(BenchContext& ctx, Communicator& comm) {
  const AutoChoice& choice = comm.auto_choice();
  const Topology& topology = comm.topology();
  absl::StatusOr<models::ModelCheck> check =
      models::ModelCheck::Create(ModelTopology(topology), choice.profile(), ModelCostOptions(topology));
  if (!check.ok()) return absl::InvalidArgumentError(absl::StrCat("--model: ", check.status().message()));
  ctx.model.kcoll = &comm;
  absl::StatusOr<LinkProbe> probe = LinkProbe::Create(MPI_COMM_WORLD, topology, comm.transport());
  if (!probe.ok()) return absl::InternalError(absl::StrCat("--model: link probe: ", probe.status().message()));
  ctx.model.probe = *std::move(probe);
  ctx.model.states.push_back(
      {*std::move(check), ctx.model.probe->ProfileSeconds(choice.profile()), ctx.options.profile_path, "at the start"});
  ctx.model.recalibrations_left = ctx.options.recalibrate;
  const models::Profile& p = choice.profile();
  return absl::StrFormat(
      "alpha-beta (models/cost_model.h) on %s; profile %s: intra alpha %.3g us, %.3g GB/s; inter alpha %.3g us, "
      "%.3g GB/s%s; gamma %.3g GB/s; error = 100 (model - time) / time",
      models::TopologyToString(ModelTopology(topology)), choice.profile_source(), p.intra.alpha_s * 1e6,
      p.intra.BytesPerSecond() / 1e9, p.inter.alpha_s * 1e6, p.inter.BytesPerSecond() / 1e9,
      p.inter.one_stream_curve.empty() ? "" : " (rounds of one stream per node priced with its own measured curve)",
      p.gamma_s_per_byte > 0 ? 1e-9 / p.gamma_s_per_byte : 0.0);
}

void AddImplementationsAndCases(BenchContext& ctx, const std::vector<Collective>& collectives,
                                Communicators& communicators, const std::vector<size_t>& sizes,
                                std::vector<std::string>* notes) {
  const BenchOptions& o = ctx.options;
  std::unique_ptr<Implementation> gloo;
  const bool all_reduce =
      std::find(collectives.begin(), collectives.end(), Collective::kAllReduce) != collectives.end();
  // Gloo runs only when named: in an MPI job its TCP transport hands every message from its I/O thread to the
  // caller's, and where waking a sleeping thread takes a scheduler tick (virtual machines) each call then costs
  // milliseconds, 10-30x what the same Gloo takes alone: rows that say more about the machine than about Gloo.
  if (all_reduce && o.algos.all && !o.algos.gloo && GlooAvailable() && !ctx.buffers.device) {
    notes->push_back(
        "all_reduce: Gloo is not among the default rows (its I/O thread's hand-off to the caller can cost a "
        "scheduler tick per message inside an MPI job, bench/README.md); --algo all,gloo adds it");
  }
  const bool want_gloo = all_reduce && o.algos.gloo && !ctx.buffers.device;
  if (want_gloo) {
    absl::StatusOr<std::unique_ptr<Implementation>> g = MakeGlooPeer(MPI_COMM_WORLD);
    if (g.ok()) {
      gloo = *std::move(g);
    } else {
      notes->push_back(absl::StrCat("all_reduce: gloo peer skipped: ", g.status().message()));
      if (o.algos.gloo) ++ctx.failures;
    }
  }
  if (ctx.buffers.device && (o.algos.mpi || o.algos.gloo)) {
    notes->push_back(absl::StrCat(CollectiveName(collectives.front()), ": mpi and gloo rows skipped: --exec cuda puts ",
                                  "the buffers on the GPU (the nccl rows are the vendor's)"));
    ++ctx.failures;
  }
  // The reference rows (--algo floor, --algo copy): AllReduces of host memory on the ranks of one node (emulated
  // nodes are several), where every rank's memory is one cache away; left out, saying why, elsewhere.
  const bool one_node_all_reduce = all_reduce && !ctx.buffers.device && communicators.main->topology().nnodes == 1;
  auto reference_row = [&](bool wanted, const char* name, const char* what,
                           absl::StatusOr<std::unique_ptr<Implementation>> (*make)(MPI_Comm)) {
    std::unique_ptr<Implementation> row;
    if (!wanted) return row;
    if (!one_node_all_reduce) {
      notes->push_back(absl::StrCat(CollectiveName(collectives.front()), ": ", name, " row skipped: ", what));
      ++ctx.failures;
      return row;
    }
    absl::StatusOr<std::unique_ptr<Implementation>> made = make(ctx.comm);
    if (made.ok()) return *std::move(made);
    notes->push_back(absl::StrCat("all_reduce: ", name, " row skipped: ", made.status().message()));
    ++ctx.failures;
    return row;
  };
  std::unique_ptr<Implementation> floor =
      reference_row(o.algos.floor, kLatencyFloorRowName, "it is an all_reduce of host memory on the ranks of one node",
                    &MakeLatencyFloorRow);
  std::unique_ptr<Implementation> copy =
      reference_row(o.algos.copy, kPeerCopyRowName,
                    "it moves an all_reduce's bytes between the ranks of one node, in host memory", &MakePeerCopyRow);
  std::shared_ptr<NcclPeerComm> nccl;
  if (o.algos.nccl && !ctx.buffers.device) {
    notes->push_back(absl::StrCat(CollectiveName(collectives.front()),
                                  ": nccl rows skipped: they run on device buffers, with --exec cuda"));
    ++ctx.failures;
  } else if (ctx.buffers.device && (o.algos.all || o.algos.nccl) && NcclPeerAvailable()) {
    absl::StatusOr<std::shared_ptr<NcclPeerComm>> made = CreateNcclPeerComm(MPI_COMM_WORLD);
    if (made.ok()) {
      nccl = *std::move(made);
    } else {
      notes->push_back(
          absl::StrCat(CollectiveName(collectives.front()), ": nccl rows skipped: ", made.status().message()));
      if (o.algos.nccl) ++ctx.failures;
    }
  }
  std::vector<std::pair<Collective, int>> order;
  for (Collective c : collectives) {
    AddImplementations(ctx, c, communicators.main.get(), communicators.extras, &gloo, &floor, &copy, nccl, &order,
                       notes);
  }
  std::vector<int> roots;
  if (o.root.has_value()) {
    roots.push_back(*o.root);
  } else {
    for (int r = 0; r < ctx.nranks; ++r) roots.push_back(r);
  }
  bool floor_sizes_left_out = false;
  for (const auto& [collective, impl_index] : order) {
    std::vector<std::optional<ReduceOp>> ops;
    if (Reduces(collective)) {
      for (ReduceOp op : o.ops) ops.emplace_back(op);
    } else {
      ops.emplace_back(std::nullopt);
    }
    for (DataType type : o.types) {
      for (const std::optional<ReduceOp>& op : ops) {
        for (int root : IsRooted(collective) ? roots : std::vector<int>{-1}) {
          for (size_t bytes : sizes) {
            for (bool in_place : {false, true}) {
              // kcoll's AllToAllV takes separate buffers (no in-place form; MPI's has one).
              const bool separate_only = collective == Collective::kAllToAllV;
              if (in_place && separate_only && !ctx.implementations[impl_index]->is_peer()) continue;
              Case c{impl_index, collective, type,
                     op,         root,       MakeLayout(collective, bytes, DataTypeSize(type), ctx.nranks),
                     in_place,   ""};
              if (ctx.implementations[impl_index]->kind() == kLatencyFloorRowKind &&
                  c.layout.bytes > kLatencyFloorRowMaxBytes) {
                floor_sizes_left_out = true;
                continue;
              }
              c.name = CaseName(c, *ctx.implementations[impl_index]);
              ctx.cases.push_back(c);
            }
          }
        }
      }
    }
  }
  if (floor_sizes_left_out) {
    notes->push_back(absl::StrCat("all_reduce: the latency_floor row has sizes up to ", kLatencyFloorRowMaxBytes,
                                  " bytes only (one cache line's payload)"));
  }
}

absl::Status ReserveBuffers(BenchContext& ctx, Communicator& comm) {
  size_t send_bytes = 0, recv_bytes = 0;
  BufferBytes(ctx, &send_bytes, &recv_bytes);
  absl::Status alloc = ctx.buffers.send_buffer.Reserve(send_bytes);
  if (alloc.ok()) alloc = ctx.buffers.recv_buffer.Reserve(recv_bytes);
  int alloc_failed = alloc.ok() ? 0 : 1;
  MPI_Allreduce(MPI_IN_PLACE, &alloc_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (alloc_failed) return absl::ResourceExhaustedError(absl::StrCat("buffers: ", alloc.ToString()));
  if (ctx.buffers.device) {  // --exec cuda: device buffers of the same sizes (the host ones mirror them)
    absl::StatusOr<void*> send = DeviceAlloc(std::max<size_t>(send_bytes, 64));
    absl::StatusOr<void*> recv = send.ok() ? DeviceAlloc(std::max<size_t>(recv_bytes, 64)) : send;
    if (send.ok()) ctx.buffers.device_send = static_cast<char*>(*send);
    if (recv.ok()) ctx.buffers.device_recv = static_cast<char*>(*recv);  // (recv is send's error when send failed)
    ctx.buffers.device_bytes_recv = recv_bytes;
    alloc_failed = recv.ok() ? 0 : 1;
    MPI_Allreduce(MPI_IN_PLACE, &alloc_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (alloc_failed) {
      return absl::ResourceExhaustedError(
          absl::StrCat("device buffers: ", recv.ok() ? "failed on another rank" : recv.status().ToString()));
    }
  }
  const bool any_registered = std::any_of(ctx.implementations.begin(), ctx.implementations.end(),
                                          [](const std::unique_ptr<Implementation>& i) { return i->registered(); });
  if (!any_registered) return absl::OkStatus();
  // Collective, and agreed: fails on every rank alike.
  absl::StatusOr<void*> send = comm.Allocate(std::max<size_t>(send_bytes, 64));
  if (!send.ok()) return absl::InternalError(absl::StrCat("registered buffers: ", send.status().ToString()));
  absl::StatusOr<void*> recv = comm.Allocate(std::max<size_t>(recv_bytes, 64));
  if (!recv.ok()) return absl::InternalError(absl::StrCat("registered buffers: ", recv.status().ToString()));
  ctx.buffers.registered_send = static_cast<char*>(*send);
  ctx.buffers.registered_recv = static_cast<char*>(*recv);
  ctx.buffers.registered_bytes_send = std::max<size_t>(send_bytes, 64);
  ctx.buffers.registered_bytes_recv = std::max<size_t>(recv_bytes, 64);
  return absl::OkStatus();
}

RunInfo MakeRunInfo(const BenchContext& ctx, const RunHeaderInputs& in) {
  const BenchOptions& o = ctx.options;
  const Communicator& comm = *in.communicators->main;
  const Topology& topology = comm.topology();
  RunInfo info;
  info.program = in.program;
  info.collectives = in.collectives;
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
  info.nranks = ctx.nranks;
  info.ranks_per_node = RanksPerNodeOrAll(topology);
  info.nodes = topology.nnodes;
  info.emulated_nodes = topology.emulated;
  info.exec = o.exec;
  const char* omp = GetEnv("OMP_NUM_THREADS");
  info.exec_note = o.exec == "serial"
                       ? "Kokkos Serial: one thread per rank, the ranks fill the cores; --exec openmp for threads"
                       : absl::StrCat("Kokkos OpenMP: ", omp != nullptr ? omp : "all", " thread(s) per rank");
  info.transport_notes.push_back(absl::StrCat("kcoll rows: ", comm.execution()));
  for (const ExtraCommunicator& extra : in.communicators->extras) {
    info.transport_notes.push_back(absl::StrCat("rows '<algorithm> ", extra.label, "': ", extra.comm->execution()));
  }
  if (o.with_timeout.has_value()) {
    info.timeout_note = absl::StrCat("rows named '<algorithm> timeout=", absl::FormatDuration(*o.with_timeout),
                                     "' run on a communicator whose waits poll under that timeout; the other kcoll "
                                     "rows wait without one (MPI_Waitall)");
  } else if (comm.timeout().timeout != absl::InfiniteDuration()) {
    info.timeout_note = absl::StrCat("every kcoll wait polls under a ", absl::FormatDuration(comm.timeout().timeout),
                                     " timeout (", comm.timeout().source, ")");
  }
  if (o.nonblocking_pct > 0) {
    info.timing_note = absl::StrCat(
        "--nonblocking ", o.nonblocking_pct, ": each iteration starts the nonblocking call, computes for ",
        o.nonblocking_pct,
        "% of the row's blocking call (median of 11, slowest rank), then waits; time is the "
        "iteration minus that computation alone (what the call left exposed; 0 when it hid entirely), busbw from it");
  }
  if (o.aligned_start) {
    info.timing_note = absl::StrCat(
        info.timing_note, info.timing_note.empty() ? "" : "; ",
        "--start aligned: every rank begins each timed iteration at one agreed instant of rank 0's clock (offsets, one "
        "per machine, by ping-pong before each round; the instant a margin after an MPI_Allreduce of the ranks' "
        "readings, waited for ",
        ctx.start_spins ? "polling the clock" : "yielding the core",
        "); a rank's time runs from the instant to its finish, so the ranks' spread in leaving the previous "
        "iteration's agreement stays out of it");
  }
  const char* launch = GetEnv("KCOLL_BENCH_LAUNCH");
  info.launch = LaunchedByBenchmark() && launch != nullptr ? launch : "started by an outside mpirun";
  info.ranks = GatherRanks(topology, MPI_COMM_WORLD, ctx.rank, ctx.nranks, ctx.buffers.device);
  info.ideal_busbw_gbps = in.ideal.busbw_gbps;
  info.ideal_note = in.ideal.note;
  info.latency_floor_s = in.ideal.latency_floor_s;
  info.model = o.model;
  info.fingerprint = o.fingerprint;
  info.model_note = in.model_note;
  info.intra_bw_gbps = in.ideal.intra_gbps;
  info.inter_bw_gbps = in.ideal.inter_gbps;
  info.args = in.args;
  info.env = RelevantEnvironment();
  info.start_time = NowString();
  info.versions = Versions();
  info.machine = DescribeMachine();
  info.cores = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));  // a bound rank sees one core: count the machine's
  double load[1];
  if (getloadavg(load, 1) == 1) info.load_average = load[0];
  return info;
}

}  // namespace bench
}  // namespace kcoll
