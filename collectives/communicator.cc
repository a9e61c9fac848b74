#include "collectives/communicator.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/byte_size.h"
#include "base/env.h"
#include "base/status_macros.h"
#include "choice/default_algorithm.h"
#include "collectives/algorithms/registry.h"
#include "collectives/argument_checks.h"
#include "collectives/argument_comparison.h"
#include "collectives/call_sizes.h"
#include "collectives/communicator_state.h"
#include "collectives/inline_path.h"
#include "collectives/kernels/exact_pair_kernels.h"
#include "collectives/observability/counting.h"
#include "collectives/observability/describe.h"
#include "collectives/profile_choice.h"
#include "collectives/topology/discover.h"
#include "collectives/topology/gpu_info.h"
#include "collectives/transport/call_tracking.h"
#include "collectives/transport/mpi/agreement.h"
#include "collectives/transport/mpi/mpi_finalize_watch.h"
#include "collectives/transport/mpi/mpi_transport.h"
#include "collectives/transport/mpi/mpi_wait.h"
#include "collectives/transport/mpi/stall_report.h"
#include "collectives/transport/shm/inline_agreement.h"
#include "collectives/transport_choice.h"

namespace kcoll {
namespace {

// How long a rank that timed out waits for the others' positions (stall_report.h), at most.
constexpr absl::Duration kStallReportWindow = absl::Milliseconds(500);

absl::StatusOr<ExecBackend> ChooseBackend(const CommunicatorOptions& options, TransportKind transport) {
  if (options.backend.has_value()) return *options.backend;
  if (const char* env = GetEnv("KCOLL_EXEC")) {
    auto parsed = ParseExecBackend(env);
    if (!parsed.ok()) return absl::InvalidArgumentError(absl::StrCat("KCOLL_EXEC: ", parsed.status().message()));
    return *parsed;
  }
  return MovesDeviceMemoryOnly(transport) ? ExecBackend::kCuda : ExecBackend::kSerial;
}

absl::StatusOr<bool> ChooseCheckArgs(const CommunicatorOptions& options) {
  if (options.check_args.has_value()) return *options.check_args;
  const char* env = GetEnv("KCOLL_CHECK_ARGS");
  if (env == nullptr) return false;
  const std::string value(env);
  if (value == "1") return true;
  if (value == "0") return false;
  return absl::InvalidArgumentError(absl::StrCat("KCOLL_CHECK_ARGS: '", value, "' is not 0 or 1"));
}

absl::StatusOr<Numerics> ChooseNumerics(const CommunicatorOptions& options) {
  if (options.numerics.has_value()) return *options.numerics;
  const char* env = GetEnv("KCOLL_NUMERICS");
  if (env == nullptr) return Numerics::kFast;
  absl::StatusOr<Numerics> parsed = ParseNumerics(env);
  if (!parsed.ok()) return absl::InvalidArgumentError(absl::StrCat("KCOLL_NUMERICS: ", parsed.status().message()));
  return *parsed;
}

// The smallest AllReduce size `profile` hands to MPI's collective; SIZE_MAX for none.
size_t VendorFromBytes(const models::Profile& profile) {
  return profile.vendor_all_reduce_bytes.empty() ? SIZE_MAX
                                                 : static_cast<size_t>(profile.vendor_all_reduce_bytes.front().first);
}

}  // namespace

absl::StatusOr<std::unique_ptr<Communicator>> Communicator::Create(MPI_Comm comm, const CommunicatorOptions& options) {
  return CreateOn(comm, options, std::nullopt);
}

absl::StatusOr<std::unique_ptr<Communicator>> Communicator::CreateOn(MPI_Comm comm, const CommunicatorOptions& options,
                                                                     std::optional<int> emulated_node) {
  KCOLL_ASSIGN_OR_RETURN(std::optional<TransportKind> asked, ChooseTransportKind(options.transport));
  KCOLL_ASSIGN_OR_RETURN(ExecBackend backend, ChooseBackend(options, asked.value_or(TransportKind::kMpi)));
  KCOLL_ASSIGN_OR_RETURN(bool check_args, ChooseCheckArgs(options));
  KCOLL_ASSIGN_OR_RETURN(Numerics numerics, ChooseNumerics(options));
  KCOLL_ASSIGN_OR_RETURN(std::optional<size_t> inline_limit, InlineLimitSetting());
  KCOLL_ASSIGN_OR_RETURN(TimeoutSettings timeout,
                         ChooseTimeout(options.timeout, options.on_timeout, asked.value_or(TransportKind::kMpi)));
  KCOLL_ASSIGN_OR_RETURN(LogConfig log_config, LogConfigFromEnv());
  std::unique_ptr<Communicator> c(new Communicator());
  c->state_->options = options;
  c->state_->backend = backend;
  KCOLL_ASSIGN_OR_RETURN(std::unique_ptr<MpiTransport> mpi,
                         MpiTransport::Create(comm, timeout.timeout, timeout.source));
  WatchMpiFinalize();  // MPI is initialised (Create checked): CheckUsable's test, without MPI_Finalized on every call
  TopologyOptions topology_options;
  topology_options.ranks_per_node = options.ranks_per_node;
  topology_options.nchannels = options.nchannels;
  topology_options.default_nchannels =
      MovesDeviceMemoryOnly(asked.value_or(TransportKind::kMpi)) ? kDefaultChannels : kHostDefaultChannels;
  topology_options.emulated_node = emulated_node;
  absl::Status gpu_status;
  if (backend == ExecBackend::kCuda) {
    absl::StatusOr<std::optional<GpuInfo>> gpu = CurrentCudaDevice();
    if (gpu.ok()) topology_options.gpu = *gpu;
    gpu_status = gpu.status();
  }
  KCOLL_ASSIGN_OR_RETURN(c->state_->topology, DiscoverTopology(mpi->comm(), topology_options));
  TransportKind transport = asked.value_or(AutoTransport(c->state_->topology, backend));
  if (!asked.has_value() && backend == ExecBackend::kCuda) {
    // Device buffers on one node: CUDA IPC where it measures faster than MPI (transport_choice.h).
    TransportDecision decision = ChooseDeviceTransport(mpi->comm(), c->state_->topology, options.gpu, timeout);
    transport = decision.kind;
    c->state_->transport_reason = std::move(decision.reason);
    if (MovesDeviceMemoryOnly(transport)) {
      // The chosen transport's own defaults, as when it is asked for by name: its channel count and timeout.
      topology_options.default_nchannels = kDefaultChannels;
      KCOLL_ASSIGN_OR_RETURN(c->state_->topology, DiscoverTopology(mpi->comm(), topology_options));
      KCOLL_ASSIGN_OR_RETURN(timeout, ChooseTimeout(options.timeout, options.on_timeout, transport));
      mpi->set_timeout(timeout.timeout, timeout.source);
    }
  }
  c->state_->transport_kind = transport;
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  KCOLL_ASSIGN_OR_RETURN(c->state_->logger, Logger::Create(log_config, world_rank, c->state_->topology.rank));
  absl::StatusOr<ProfileChoice> profile = ChooseCommunicatorProfile(
      mpi->comm(), options.profile_path, c->state_->topology, transport, timeout.timeout, "Create");
  KCOLL_RETURN_IF_ERROR(profile.status());
  // Shared-memory settings the machine measured (every rank has the same profile).
  ExecutionRequest::ShmSettings shm_settings;
  if (profile->profile.shm_single_copy_bytes.has_value()) {
    shm_settings.single_copy_bytes = static_cast<size_t>(*profile->profile.shm_single_copy_bytes);
  }
  if (profile->profile.shm_slot_bytes.has_value()) {
    shm_settings.slot_bytes = static_cast<size_t>(*profile->profile.shm_slot_bytes);
  }
  shm_settings.source = absl::StrCat("measured; profile: ", profile->source);
  c->state_->host_ranks = backend != ExecBackend::kCuda;
  KCOLL_ASSIGN_OR_RETURN(AutoChoice auto_choice,
                         AutoChoice::Create(c->state_->topology, *std::move(profile), c->state_->host_ranks));
  c->state_->auto_choice = std::make_unique<AutoChoice>(std::move(auto_choice));
  c->state_->vendor_from_bytes = VendorFromBytes(c->state_->auto_choice->profile());
  if (MPI_Comm_dup(mpi->comm(), &c->state_->control_comm) != MPI_SUCCESS) {
    return absl::InternalError("MPI_Comm_dup of the control communicator failed");
  }
  c->state_->check_args = check_args;
  c->state_->numerics = numerics;
  c->state_->inline_max_bytes = inline_limit.value_or(kDefaultInlineMaxBytes);
  if (const char* algo = GetEnv("KCOLL_ALGO")) {
    for (Collective collective : AllCollectives()) {
      c->state_->algo_override.push_back(ParseAlgorithmOverride(algo, collective));
    }
  }
  c->state_->timeout = timeout;
  // The transport (MPI, shared memory, or NCCL bootstrapped over MPI) and the kernels that go with it.
  ExecutionRequest request;
  request.mpi = std::move(mpi);
  request.backend = backend;
  request.gpu = options.gpu;
  request.timeout = timeout;
  request.node_of = c->state_->topology.node_of;
  request.shm = std::move(shm_settings);
  KCOLL_ASSIGN_OR_RETURN(Execution execution, MakeExecution(transport, std::move(request)));
  c->state_->execution = std::move(execution.description);
  if (execution.shm_copy_choice) {
    CopyChoice::Options choice;
    choice.from_bytes = execution.shm_single_copy_bytes;
    // After a run of single copies the slots took 3-4 calls to be as fast again (a 4 MiB AllGather on the 2-core VM:
    // 390, 319, 259, then 240-260 us); counting the second one undersold them.
    choice.warmup_calls = 3;
    c->state_->copy_choice = std::make_unique<CopyChoice>(choice);
    c->state_->copy_choice_reductions = execution.shm_copy_choice_reductions;
  }
  if (execution.shm_store_choice) {
    CopyChoice::Options choice;
    choice.from_bytes = execution.shm_store_choice_from_bytes;
    // One uncounted call per change of way: either way leaves the caches as the other finds them, but for the one
    // ring of slots (2 MiB per pair) that the first call after a change rewrites.
    choice.warmup_calls = 1;
    c->state_->store_choice = std::make_unique<CopyChoice>(choice);
  }
  // Every primitive an algorithm issues is counted on its way through these two decorators.
  c->state_->kernels = std::make_unique<CountingKernels>(std::move(execution.kernels), c->state_->counters.total);
  c->state_->transport = std::make_unique<CountingTransport>(std::move(execution.transport), c->state_->topology,
                                                             c->state_->counters.total);
  KCOLL_ASSIGN_OR_RETURN(c->state_->inline_exchange,
                         MakeInlineExchange(c->state_->control_comm, c->state_->topology, transport, backend, timeout));
  for (Collective collective : AllCollectives()) {
    if (!HasInlineForm(collective)) continue;
    const auto& overrides = c->state_->algo_override;
    const size_t i = static_cast<size_t>(collective);
    const bool algo_named = i < overrides.size() && (!overrides[i].ok() || overrides[i]->has_value());
    if (c->state_->inline_exchange != nullptr && !check_args && !algo_named) c->state_->inline_lanes |= 1u << i;
  }
  ProgressSituation situation;
  situation.backend = backend;
  situation.stream_ordered = c->state_->transport->StreamOrdered();
  situation.calls_mpi = !(SharesNodeMemory(transport) && c->state_->topology.nnodes == 1 && !check_args);
  MPI_Query_thread(&situation.mpi_thread_level);
  c->state_->vendor_on_any_thread = situation.mpi_thread_level >= MPI_THREAD_MULTIPLE;
  c->state_->vendor.timeout = timeout.timeout;
  c->state_->vendor.timeout_source = timeout.source;
  KCOLL_ASSIGN_OR_RETURN(c->state_->progress, ChooseProgress(options.progress, situation));
  if (c->state_->progress.way == ProgressWay::kStream) {
    Communicator* self = c.get();
    c->state_->stream_calls = std::make_shared<StreamCalls>();
    c->state_->stream_calls->synchronize = [self] { return self->SynchronizeStream(); };
    c->state_->stream_calls->reached = [self](uint64_t mark) { return self->state_->transport->Reached(mark); };
  }

  KCOLL_RETURN_IF_ERROR(c->SetInlineLimit(inline_limit));

  if (!gpu_status.ok()) c->state_->logger.Log(LogLevel::kWarn, absl::StrCat("no GPU fields: ", gpu_status.message()));
  if (c->state_->logger.Enabled(LogLevel::kInfo)) {
    // Rank 0 prints the whole block; every other rank its own line, so that each per-rank log names its rank.
    const std::vector<std::string> lines =
        c->rank() == 0 ? c->Describe() : std::vector<std::string>{DescribeRank(c->state_->topology, c->rank())};
    c->state_->logger.Log(LogLevel::kInfo, absl::StrJoin(lines, "\n"));
  }
  return c;
}

Communicator::Communicator() : state_(std::make_unique<CommunicatorState>()) {}

Communicator::~Communicator() { Finalize().IgnoreError(); }

int Communicator::rank() const { return state_->topology.rank; }
int Communicator::size() const { return state_->topology.nranks; }
const Topology& Communicator::topology() const { return state_->topology; }
ExecBackend Communicator::backend() const { return state_->backend; }
bool Communicator::checks_args() const { return state_->check_args; }
Numerics Communicator::numerics() const { return state_->numerics; }
size_t Communicator::inline_limit_bytes() const {
  return state_->inline_exchange != nullptr ? state_->inline_max_bytes : 0;
}
const TimeoutSettings& Communicator::timeout() const { return state_->timeout; }
const absl::Status& Communicator::broken() const {
  Settle();
  return state_->broken;
}
TransportKind Communicator::transport() const { return state_->transport_kind; }
const std::string& Communicator::execution() const { return state_->execution; }
Kernels* Communicator::kernels() {
  Settle();
  return state_->kernels.get();
}
const AutoChoice& Communicator::auto_choice() const {
  Settle();
  return *state_->auto_choice;
}
const Counters& Communicator::counters() const {
  Settle();
  return state_->counters;
}
void Communicator::ResetCounters() {
  Settle();
  state_->counters = Counters();
  state_->inline_memo.DropUntallied();
}
bool Communicator::finalized() const { return state_->transport == nullptr; }

bool Communicator::CanRunZeroCopy() const {
  if (state_->topology.nnodes != 1) return false;
  // Device memory is mapped through CUDA IPC whatever moves the transfers; host memory needs the node's segment.
  return registered_memory() == MemoryKind::kDevice || SharesNodeMemory(state_->transport_kind);
}

std::vector<std::string> Communicator::Describe() const {
  Settle();
  std::vector<std::string> lines = DescribeTopology(
      state_->topology, CommInfo{std::string(ExecBackendName(state_->backend)),
                                 state_->transport ? std::string(state_->transport->name()) : "finalized",
                                 state_->transport ? state_->execution : ""});
  if (!state_->transport_reason.empty()) {
    lines.push_back(absl::StrCat("comm ", FormatCommId(state_->topology.comm_id), " ", state_->transport_reason));
  }
  if (state_->auto_choice != nullptr) {
    lines.push_back(absl::StrCat("comm ", FormatCommId(state_->topology.comm_id),
                                 " auto prices with: ", state_->auto_choice->profile_source()));
    const auto& vendor = state_->auto_choice->profile().vendor_all_reduce_bytes;
    if (!vendor.empty()) {
      lines.push_back(absl::StrCat(
          "comm ", FormatCommId(state_->topology.comm_id), " auto hands AllReduce to MPI's own collective at: ",
          models::FormatVendorSizes(vendor), " per rank (the profile measured MPI faster there)"));
    }
  }
  lines.push_back(absl::StrCat("comm ", FormatCommId(state_->topology.comm_id),
                               " nonblocking calls progress: ", state_->progress.reason));
  if (state_->inline_exchange != nullptr) {
    lines.push_back(absl::StrCat("comm ", FormatCommId(state_->topology.comm_id), " inline lane: up to ",
                                 FormatInlineBytes(state_->inline_max_bytes), ", ", state_->inline_limit_reason));
  }
  return lines;
}

std::string Communicator::DescribeJson() const {
  Settle();
  nlohmann::json j = TopologyToJson(state_->topology);
  j["backend"] = std::string(ExecBackendName(state_->backend));
  j["transport"] = state_->transport ? std::string(state_->transport->name()) : "finalized";
  if (state_->auto_choice != nullptr) {
    j["profile"] = state_->auto_choice->profile_source();
    const auto& vendor = state_->auto_choice->profile().vendor_all_reduce_bytes;
    if (!vendor.empty()) j["vendor_all_reduce"] = models::FormatVendorSizes(vendor);
  }
  if (state_->inline_exchange != nullptr) {
    j["inline_max_bytes"] = state_->inline_max_bytes;
    j["inline_limit"] = state_->inline_limit_reason;
  }
  j["counters"] = CountersToJson(state_->counters);
  return j.dump();
}

absl::Status Communicator::Finalize() {
  int mpi_finalized = 0;
  MPI_Finalized(&mpi_finalized);
  // Nonblocking calls in flight complete first; their requests keep their own results.
  if (!finalized()) Settle();
  state_->progress_thread.reset();
  if (state_->stream_calls != nullptr && state_->stream_calls->open()) {
    state_->stream_calls->final_result =
        !finalized() && !mpi_finalized && KokkosRunning() ? SynchronizeStream() : state_->broken;
    state_->stream_calls->synchronize = nullptr;
    state_->stream_calls->reached = nullptr;
  }
  if (!finalized() && !KokkosRunning()) {
    // Kokkos was finalised first: its memory can no longer be freed. The scratch is left behind (the process is
    // ending); the transport is released as usual.
    state_->logger.Log(LogLevel::kWarn, "Finalize after Kokkos::finalize: the kernels' scratch memory is not freed");
    state_->kernels.release();
  }
  if (!finalized() && mpi_finalized) {
    // MPI was finalised first: nothing of MPI can be called, nor needs to be (MPI_Finalize freed the communicators).
    state_->logger.Log(LogLevel::kWarn, "Finalize after MPI_Finalize: MPI's resources were released by MPI_Finalize");
    state_->control_comm = MPI_COMM_NULL;
    state_->vendor.comm = MPI_COMM_NULL;
  }
  if (!finalized() && state_->logger.Enabled(LogLevel::kInfo)) {
    state_->logger.Log(LogLevel::kInfo, absl::StrJoin(DescribeCounters(state_->topology, state_->counters), "\n"));
  }
  // With a timeout, leave nothing behind that could reach a later communicator (see Transport::Quiesce). Without
  // one, Finalize does not wait for the other ranks, as MPI_Comm_free does not.
  if (!finalized() && !mpi_finalized && state_->broken.ok() && state_->timeout.timeout != absl::InfiniteDuration()) {
    absl::Status quiet = state_->transport->Quiesce(state_->timeout.timeout);
    if (!quiet.ok()) state_->logger.Log(LogLevel::kWarn, absl::StrCat("Finalize: ", quiet.message()));
  }
  // The transport first: destroying it completes (or withdraws) the transfers still in flight, some of which may
  // read or write the kernels' scratch (a stream-ordered transport's last group); then the scratch can go.
  state_->transport.reset();
  state_->repeat_lane = false;
  state_->kernels.reset();
  state_->registered.reset();
  state_->inline_exchange.reset();
  if (state_->control_comm != MPI_COMM_NULL) {
    // A broken communicator's control exchanges may still be pending: its communicator is kept, as the transport's.
    if (!mpi_finalized && state_->broken.ok()) MPI_Comm_free(&state_->control_comm);
    state_->control_comm = MPI_COMM_NULL;
  }
  if (state_->vendor.comm != MPI_COMM_NULL) {
    if (!mpi_finalized && state_->broken.ok()) MPI_Comm_free(&state_->vendor.comm);
    state_->vendor.comm = MPI_COMM_NULL;
  }
  return absl::OkStatus();
}

absl::Status Communicator::CheckUsable(absl::string_view what) const {
  if (finalized()) return absl::InvalidArgumentError(absl::StrCat(what, ": communicator used after Finalize()"));
  if (MpiFinalizeBegun()) {
    return absl::FailedPreconditionError(
        absl::StrCat(what, ": MPI was finalized before the communicator (call Finalize() before MPI_Finalize)"));
  }
  if (!KokkosRunning()) {
    return absl::FailedPreconditionError(
        absl::StrCat(what, ": Kokkos was finalized before the communicator (call Finalize() before Kokkos::finalize)"));
  }
  if (!state_->broken.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        what, ": the communicator is broken by an earlier error (create a new one): ", state_->broken.ToString()));
  }
  return absl::OkStatus();
}

void Communicator::NoteCallBegun(Collective collective, uint64_t start) {
  if (collective == Collective::kSendRecv) return;
  state_->NoteCallBegun(CollectiveName(collective), start);
}

absl::Status Communicator::WithStallReport(const absl::Status& error) const {
  if (state_->control_comm == MPI_COMM_NULL || size() < 2) return error;
  RankPosition mine;
  mine.rank = rank();
  mine.call = state_->calls_begun;
  mine.collective = std::string(state_->current_collective);
  mine.timed_out_at = absl::ToDoubleSeconds(absl::Now() - absl::UnixEpoch());
  mine.began_at = mine.timed_out_at - state_->clock.Seconds(state_->clock.Now() - state_->current_call_start);
  // The error carries whom the wait waited for; the transport knows whom this call heard from.
  // (An error without them, a collective's, still tells the others where this rank is.)
  WaitedPeers(error, &mine.step, &mine.waiting_on);
  if (state_->transport_call == state_->calls_begun) mine.heard_from = state_->transport->HeardFrom();
  // Within the second a timeout promises its error in, and no longer than the timeout itself.
  const absl::Duration window = std::min(state_->timeout.timeout, kStallReportWindow);
  const std::map<int, RankPosition> answers = ExchangePositions(state_->control_comm, mine, window);
  const Topology& topology = state_->topology;
  auto host_of = [&topology](int r) -> std::string {
    return r >= 0 && r < static_cast<int>(topology.ranks.size()) ? topology.ranks[r].host : "";
  };
  const std::string report = ExplainStall(mine, answers, host_of, window);
  if (report.empty()) return error;
  return absl::Status(error.code(), absl::StrCat(error.message(), report));
}

absl::Status Communicator::Break(absl::Status error) {
  if (error.code() == absl::StatusCode::kDeadlineExceeded && state_->broken.ok()) error = WithStallReport(error);
  if (state_->broken.ok()) state_->broken = error;
  state_->transport->Abandon();
  if (error.code() == absl::StatusCode::kDeadlineExceeded && state_->timeout.on_timeout == OnTimeout::kAbort) {
    std::fprintf(stderr, "kcoll: %s (KCOLL_ON_TIMEOUT=abort: ending the job)\n", error.ToString().c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, kTimeoutExitCode);
  }
  return error;
}

absl::Status Communicator::SetProfile(const std::string& profile_path) {
  Settle();
  KCOLL_RETURN_IF_ERROR(CheckUsable("SetProfile"));
  absl::StatusOr<ProfileChoice> profile =
      ChooseCommunicatorProfile(state_->control_comm, profile_path, state_->topology, state_->transport_kind,
                                state_->timeout.timeout, "SetProfile", /*reuse_probe=*/false);
  if (profile.status().code() == absl::StatusCode::kDeadlineExceeded) return Break(profile.status());
  KCOLL_RETURN_IF_ERROR(profile.status());  // the same on every rank
  absl::StatusOr<AutoChoice> choice = AutoChoice::Create(state_->topology, *std::move(profile), state_->host_ranks);
  absl::Status agreed = AgreeOnProfile(state_->control_comm, choice.status(), state_->timeout.timeout, "SetProfile");
  if (agreed.code() == absl::StatusCode::kDeadlineExceeded) return Break(agreed);
  KCOLL_RETURN_IF_ERROR(agreed);
  state_->auto_choice = std::make_unique<AutoChoice>(*std::move(choice));
  state_->vendor_from_bytes = VendorFromBytes(state_->auto_choice->profile());
  state_->last_choice.valid = false;  // chosen with the previous profile
  return absl::OkStatus();
}

absl::StatusOr<Algorithm> Communicator::ResolveAlgorithm(Collective collective, size_t bytes,
                                                         Algorithm requested) const {
  Settle();
  return ChooseAlgorithm(collective, bytes, requested);
}

absl::StatusOr<Algorithm> Communicator::ChooseAlgorithm(Collective collective, size_t bytes,
                                                        Algorithm requested) const {
  KCOLL_ASSIGN_OR_RETURN(const Algorithm named, state_->NamedAlgorithm(collective, requested));
  if (named != Algorithm::kAuto) return named;
  // A small AllReduce or scan on one node over shm: every rank's buffer inline in shared cache lines
  // (all_reduce/inline.cc).
  if (HasInlineForm(collective) && bytes <= state_->inline_max_bytes && state_->inline_exchange != nullptr) {
    return Algorithm::kInline;
  }
  // Most programs repeat one call (a training step, a solver iteration): its choice is kept without a lookup.
  if (state_->last_choice.valid && state_->last_choice.collective == collective && state_->last_choice.bytes == bytes) {
    return state_->last_choice.algorithm;
  }
  KCOLL_ASSIGN_OR_RETURN(Algorithm chosen, state_->auto_choice->Choose(collective, bytes));
  state_->last_choice = CommunicatorState::LastChoice{collective, bytes, chosen, true};
  return chosen;
}

// Every blocking call enters here: the method of each collective builds its CollectiveCall (collective_call.h). An
// AllReduce goes on to the AllReduce method (communicator_inline.cc), which first checks for a repeated inline call.
absl::Status Communicator::Call(const CollectiveCall& call) {
  if (call.collective == Collective::kAllReduce) {
    return AllReduce(call.send, call.recv, call.count, call.type, call.op, call.options, call.memory);
  }
  Settle();
  return Dispatch(call);
}

absl::Status Communicator::Dispatch(const CollectiveCall& call) {
  if (state_->group_depth > 0) return Queue(call);
  // The inline lane combines in rank order already, or sums exactly (ArgsOf): it serves every numerics mode.
  if (TakesInlineLane(call)) return RunInlineLane(ArgsOf(call));
  if (NeedsRankOrder(call)) return RunInRankOrder(call);
  return RunStages(call, /*synchronize=*/true);
}

CollectiveArgs Communicator::ArgsOf(const CollectiveCall& call) const {
  CollectiveArgs args{call.collective, call.send, call.recv, call.count,
                      call.type,       call.op,   call.root, call.options.tuning};
  args.exact_sum = SumsExactly(call);
  if (IsVariable(call.collective)) {
    args.send_counts = call.send_counts;
    args.send_displs = call.send_displs;
    args.recv_counts = call.recv_counts;
    args.recv_displs = call.recv_displs;
    args.counts_size = size();
  }
  return args;
}

absl::Status Communicator::CallOtherThanAllReduce(Collective collective, const void* send, void* recv, size_t count,
                                                  DataType type, ReduceOp op, int root, const CallOptions& options,
                                                  MemoryKind memory) {
  if (!IsVariable(collective))
    return Call(CollectiveCall::Named(collective, send, recv, count, type, op, root, options, memory));
  if (state_->group_depth > 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        CollectiveName(collective), ": Call inside a group has no counts arrays that outlive GroupEnd; call ",
        "its own method with arrays of your own"));
  }
  const EqualBlocks blocks(count, size());
  return Call(CollectiveCall::NamedWithBlocks(collective, send, recv, count, type, op, root, blocks.counts.data(),
                                              blocks.displs.data(), options, memory));
}

absl::Status Communicator::RejectCall(Collective collective, absl::Status rejection) {
  Settle();
  if (rejection.ok() || !CheckUsable(CollectiveName(collective)).ok()) return rejection;
  // The ranks that accepted are in Run: this rank takes the same part in the call's agreement as they do.
  if (!state_->check_args) {
    return IsRooted(collective)
               ? AgreeOnAcceptance(CollectiveName(collective), AlgorithmName(Algorithm::kAuto), rejection)
               : rejection;
  }
  CollectiveArgs args;
  args.collective = collective;
  absl::Status checked =
      CompareArgumentsAcrossRanks(state_->control_comm, args, Algorithm::kAuto, rejection, state_->timeout.timeout);
  if (checked.code() == absl::StatusCode::kDeadlineExceeded) return Break(checked);
  return checked;
}

absl::Status Communicator::AgreeOnAcceptance(absl::string_view call_name, absl::string_view algorithm,
                                             const absl::Status& local) {
  if (state_->inline_exchange != nullptr) {
    // One node over shared memory: one exchange of cache lines. The signature is the call's name alone: a rank that
    // rejected its arguments resolved no algorithm, and must still meet the others.
    uint32_t signature = 2166136261u;  // FNV-1a of the name: the same on every rank
    for (char ch : call_name) signature = (signature ^ static_cast<unsigned char>(ch)) * 16777619u;
    const Transport::CallInfo info{call_name, algorithm, signature, &state_->clock, state_->clock.Now()};
    absl::Status agreed = AgreeOnAcceptanceInline(*state_->inline_exchange, info, local);
    if (agreed.code() == absl::StatusCode::kDeadlineExceeded) return Break(agreed);
    return agreed;
  }
  CallToAgreeOn call;
  call.collective = call_name;
  call.algorithm = algorithm;
  call.timeout = state_->timeout.timeout;
  call.timeout_source = state_->timeout.source;
  absl::Status agreed = AgreeOnAcceptanceOverMpi(state_->control_comm, call, local);
  if (agreed.code() == absl::StatusCode::kDeadlineExceeded) return Break(agreed);
  return agreed;
}

// The stages every call that is not queued in a group or on the inline lane runs through, in this order. Every check
// that can fail happens before any traffic (validate, resolve), and the ranks agree on its outcome where some rank
// may see an argument alone (agree), so ranks given the same arguments fail together.
absl::Status Communicator::RunStages(const CollectiveCall& call, bool synchronize) {
  const CollectiveArgs args = ArgsOf(call);
  KCOLL_RETURN_IF_ERROR(CheckUsable(CollectiveName(args.collective)));
  NoteCallBegun(args.collective, state_->clock.Now());
  ResolvedCall resolved;
  absl::Status local = Validate(args, call.memory);
  if (local.ok()) local = Resolve(args, call.options.algorithm, &resolved);
  if (local.ok() && HandsToVendor(call, PricedBytes(args, rank(), size()))) {
    resolved.algorithm = Algorithm::kVendor;
    const absl::StatusOr<AlgorithmFn> vendor = FindAlgorithm(args.collective, Algorithm::kVendor);
    local = vendor.status();
    if (vendor.ok()) resolved.schedule = *vendor;
  }
  KCOLL_RETURN_IF_ERROR(Agree(args, resolved.algorithm, local));
  KCOLL_RETURN_IF_ERROR(local);
  return Execute(args, call, resolved, synchronize);
}

absl::Status Communicator::Validate(const CollectiveArgs& args, MemoryKind memory) const {
  const bool reachable = state_->transport->CanReach(memory) && memory == state_->kernels->memory();
  return CheckArguments(args, rank(), size(), memory, reachable);
}

absl::Status Communicator::Resolve(const CollectiveArgs& args, Algorithm requested, ResolvedCall* resolved) const {
  KCOLL_ASSIGN_OR_RETURN(resolved->algorithm,
                         ChooseAlgorithm(args.collective, PricedBytes(args, rank(), size()), requested));
  KCOLL_ASSIGN_OR_RETURN(resolved->schedule, FindAlgorithm(args.collective, resolved->algorithm));
  return absl::OkStatus();
}

absl::Status Communicator::Agree(const CollectiveArgs& args, Algorithm algorithm, const absl::Status& local) {
  if (state_->check_args) {
    absl::Status checked =
        CompareArgumentsAcrossRanks(state_->control_comm, args, algorithm, local, state_->timeout.timeout);
    if (checked.code() == absl::StatusCode::kDeadlineExceeded) return Break(checked);
    return checked;
  }
  // A root's buffers are seen by the root alone (and a non-root's by that rank alone): the ranks of a rooted call
  // agree before any traffic, so that a rejection anywhere is an error everywhere and the next call finds every rank
  // in step. (The cross-rank check above makes the same agreement, and more.)
  if (IsRooted(args.collective))
    return AgreeOnAcceptance(CollectiveName(args.collective), AlgorithmName(algorithm), local);
  return absl::OkStatus();
}

absl::Status Communicator::Execute(const CollectiveArgs& args, const CollectiveCall& call, ResolvedCall resolved,
                                   bool synchronize) {
  const Algorithm requested = call.options.algorithm;
  const PrimitiveCounts before = state_->counters.total;
  // Ticks, not steady_clock: a call reads the clock twice (the counters' time), and steady_clock costs more than the
  // tick counter. Transports read the real clock only when they report a timeout.
  const uint64_t start = state_->clock.Now();
  ExactPairKernels exact_pairs(*state_->kernels);
  Resources resources{*state_->transport, SumsExactlyInPairs(args) ? exact_pairs : *state_->kernels, state_->topology};
  resources.inline_exchange = state_->inline_exchange.get();
  PeerMemory::Buffers peer_buffers;
  if (MayRunDirect(args, requested, resolved.algorithm, call.memory)) {
    // Every rank learns whether every rank's buffers are registered; `auto` then runs zero-copy. Device buffers may
    // still be written by work queued on the kernels' stream: it finishes before any peer is told to read them.
    if (state_->registered->memory() == MemoryKind::kDevice) state_->kernels->Fence();
    const size_t elem = DataTypeSize(args.type);
    absl::StatusOr<bool> registered =
        state_->registered->Exchange(Transport::CallInfo{CollectiveName(args.collective), AlgorithmName(requested),
                                                         CallSignature(args, requested), &state_->clock, start},
                                     args.send, SendCount(args, rank(), size()) * elem, args.recv,
                                     RecvCount(args, rank(), size()) * elem, &peer_buffers);
    if (registered.status().code() == absl::StatusCode::kDeadlineExceeded) return Break(registered.status());
    KCOLL_RETURN_IF_ERROR(registered.status());
    resources.peer_memory = state_->registered.get();
    if (*registered) {
      resources.peer_buffers = &peer_buffers;
      resolved.algorithm = Algorithm::kDirect;
      KCOLL_ASSIGN_OR_RETURN(resolved.schedule, FindAlgorithm(args.collective, resolved.algorithm));
    }
  }
  const Algorithm algorithm = resolved.algorithm;
  if (algorithm == Algorithm::kVendor) PrepareVendor(call.memory, &resources);
  const Transport::CallInfo info{CollectiveName(args.collective), AlgorithmName(algorithm),
                                 CallSignature(args, algorithm), &state_->clock, start};
  if (algorithm == Algorithm::kInline && resources.inline_exchange != nullptr)
    resources.inline_exchange->BeginCall(info);
  const absl::StatusOr<CopyWay> copy = ChooseCopyWay(args, call, algorithm, resources, synchronize);
  if (!copy.ok())
    return copy.status().code() == absl::StatusCode::kDeadlineExceeded ? Break(copy.status()) : copy.status();
  const absl::StatusOr<StoreWay> store = ChooseStoreWay(args, call, algorithm, resources, synchronize, *copy);
  if (!store.ok())
    return store.status().code() == absl::StatusCode::kDeadlineExceeded ? Break(store.status()) : store.status();
  state_->transport->BeginCall(info);
  state_->transport_call = state_->calls_begun;
  absl::Status status = RunAlgorithm(resolved.schedule, args, resources, synchronize);
  if (algorithm == Algorithm::kInline && status.ok()) {
    CountInlineAllReduce(args.count * DataTypeSize(args.type), size(), state_->counters.total);
  }
  const double seconds = state_->clock.Seconds(state_->clock.Now() - start);
  if (copy->measured && status.ok()) state_->copy_choice->Record(copy->group, copy->single_copy, seconds);
  if (store->measured && status.ok()) state_->store_choice->Record(store->group, store->streaming, seconds);
  Record(args, algorithm, before, seconds, status);
  // A call that failed once this rank had posted transfers leaves the ranks out of step: nothing may run on this
  // communicator any more. One refused before any transfer (an algorithm rejecting its tuning), or one whose schedule
  // finished every transfer before it found the error (Resources::failed_in_step), leaves it usable.
  const bool posted =
      state_->counters.total.send.calls != before.send.calls || state_->counters.total.recv.calls != before.recv.calls;
  const bool in_step = resources.failed_in_step && status.code() != absl::StatusCode::kDeadlineExceeded;
  if (!status.ok() && !in_step && (posted || status.code() == absl::StatusCode::kDeadlineExceeded)) {
    return Break(status);
  }
  return status;
}

namespace {

// Whether a call's large messages go through the shm transport's sends, which the copy and store choices steer: not a
// v-collective (its counts differ by rank), not device memory, not the zero-copy path (it reads the peers' registered
// buffers), not MPI's own collective, not the inline lane.
bool SendsLargeMessagesThroughShm(const CollectiveArgs& args, const CollectiveCall& call, Algorithm algorithm,
                                  const Resources& resources) {
  return !IsVariable(args.collective) && call.memory == MemoryKind::kHost && resources.peer_buffers == nullptr &&
         algorithm != Algorithm::kVendor && algorithm != Algorithm::kInline;
}

}  // namespace

absl::StatusOr<Communicator::CopyWay> Communicator::ChooseCopyWay(const CollectiveArgs& args,
                                                                  const CollectiveCall& call, Algorithm algorithm,
                                                                  const Resources& resources, bool synchronize) {
  CopyWay way;
  if (state_->copy_choice == nullptr) return way;
  // The size every rank of the call sees the same (the v-collectives' counts differ by rank: they keep the slots).
  const size_t bytes = args.count * DataTypeSize(args.type);
  // By default the collectives that reduce keep the slots (shm_execution.cc says why).
  if (!SendsLargeMessagesThroughShm(args, call, algorithm, resources) || bytes < state_->copy_choice->from_bytes() ||
      (Reduces(args.collective) && !state_->copy_choice_reductions)) {
    state_->transport->AllowSingleCopy(false);
    return way;
  }
  KCOLL_ASSIGN_OR_RETURN(const ChosenWay chosen,
                         ChooseWay(*state_->copy_choice, args.collective, bytes, synchronize, "copy choice"));
  way = CopyWay{chosen.measured, chosen.second, chosen.group, bytes};
  if (chosen.changed) LogCopyWay(args.collective, way, chosen.first_seconds, chosen.second_seconds, chosen.voters);
  state_->transport->AllowSingleCopy(way.single_copy);
  return way;
}

absl::StatusOr<Communicator::ChosenWay> Communicator::ChooseWay(CopyChoice& choice, Collective collective, size_t bytes,
                                                                bool synchronize, absl::string_view name) {
  ChosenWay way;
  const uint64_t group = CopyChoice::Group(static_cast<int>(collective), bytes);
  way.group = group;
  if (!synchronize) {
    // A nonblocking call's time includes whatever ran beside it: it takes the group's way and measures nothing.
    way.second = choice.Prefers(group);
    return way;
  }
  way.measured = true;
  const CopyChoice::Call next = choice.Next(group);
  way.second = next.single_copy;
  if (!next.decides) return way;
  const bool before = choice.Prefers(group);
  double totals[2] = {choice.AverageSeconds(group, false), choice.AverageSeconds(group, true)};
  InlineExchange* exchange = state_->pending_inline == nullptr ? state_->inline_exchange.get() : nullptr;
  if (exchange != nullptr) {
    // Every rank of the node decides on the same numbers (CopyChoice::LeastAcrossRanks): the same way everywhere.
    const double mine[2] = {totals[0], totals[1]};
    exchange->BeginCall(Transport::CallInfo{CollectiveName(collective), name, static_cast<uint32_t>(group),
                                            &state_->clock, state_->clock.Now()});
    KCOLL_RETURN_IF_ERROR(exchange->Exchange(mine, sizeof(mine)));
    std::vector<std::array<double, 2>> averages(static_cast<size_t>(exchange->size()));
    for (int r = 0; r < exchange->size(); ++r) std::memcpy(averages[r].data(), exchange->Payload(r), sizeof(mine));
    const std::array<double, 2> least = CopyChoice::LeastAcrossRanks(averages);
    totals[0] = least[0];
    totals[1] = least[1];
    way.voters = exchange->size();
  }
  way.second = choice.Decide(group, totals[0], totals[1]);
  way.changed = way.second != before;
  way.first_seconds = totals[0];
  way.second_seconds = totals[1];
  return way;
}

absl::StatusOr<Communicator::StoreWay> Communicator::ChooseStoreWay(const CollectiveArgs& args,
                                                                    const CollectiveCall& call, Algorithm algorithm,
                                                                    const Resources& resources, bool synchronize,
                                                                    const CopyWay& copy) {
  StoreWay way;
  if (state_->store_choice == nullptr) return way;
  CopyChoice& choice = *state_->store_choice;
  const size_t bytes = args.count * DataTypeSize(args.type);
  // Not the calls that the copy choice measures: a call's time would then answer for both choices at once.
  if (!SendsLargeMessagesThroughShm(args, call, algorithm, resources) || bytes < choice.from_bytes() || copy.measured ||
      copy.single_copy) {
    state_->transport->StreamSlotStores(false);
    return way;
  }
  KCOLL_ASSIGN_OR_RETURN(const ChosenWay chosen,
                         ChooseWay(choice, args.collective, bytes, synchronize, "store choice"));
  way = StoreWay{chosen.measured, chosen.second, chosen.group, bytes};
  if (chosen.changed) LogStoreWay(args.collective, way, chosen.first_seconds, chosen.second_seconds, chosen.voters);
  state_->transport->StreamSlotStores(way.streaming);
  return way;
}

void Communicator::LogStoreWay(Collective collective, const StoreWay& way, double cached_seconds,
                               double streaming_seconds, int ranks) {
  if (state_->store_choice_logs >= kCopyChoiceLogs || !state_->logger.Enabled(LogLevel::kInfo)) return;
  ++state_->store_choice_logs;
  const double taken = way.streaming ? streaming_seconds : cached_seconds;
  const double other = way.streaming ? cached_seconds : streaming_seconds;
  state_->logger.Log(
      LogLevel::kInfo,
      absl::StrCat(CollectiveName(collective), " of ", FormatByteSize(way.bytes), " and its size class now write the ",
                   "slots with ", way.streaming ? "streaming" : "cached", " stores (",
                   absl::StrFormat("%.1f us", taken * 1e6), ") over ", way.streaming ? "cached" : "streaming", " (",
                   absl::StrFormat("%.1f us", other * 1e6), "): recent calls, ",
                   ranks == 1 ? "this rank's averages" : absl::StrCat("the least of ", ranks, " ranks' averages"),
                   state_->store_choice_logs == kCopyChoiceLogs ? "; the last such line" : ""));
}

void Communicator::LogCopyWay(Collective collective, const CopyWay& way, double slots_seconds, double single_seconds,
                              int ranks) {
  if (state_->copy_choice_logs >= kCopyChoiceLogs || !state_->logger.Enabled(LogLevel::kInfo)) return;
  ++state_->copy_choice_logs;
  state_->logger.Log(
      LogLevel::kInfo,
      absl::StrCat(CollectiveName(collective), " of ", FormatByteSize(way.bytes), " and its size class now take ",
                   CopyChoice::DescribeWays(way.single_copy, slots_seconds, single_seconds), ": recent calls, ",
                   ranks == 1 ? "this rank's averages" : absl::StrCat("the least of ", ranks, " ranks' averages"),
                   state_->copy_choice_logs == kCopyChoiceLogs ? "; the last such line" : ""));
}

bool Communicator::HandsToVendor(const CollectiveCall& call, size_t bytes) const {
  if (bytes < state_->vendor_from_bytes || call.collective != Collective::kAllReduce) return false;
  // Only `auto`'s own choice, of a call that MPI's collective can serve as kcoll would (VendorRefusal), whose bits may
  // be MPI's.
  const absl::StatusOr<Algorithm> named = state_->NamedAlgorithm(call.collective, call.options.algorithm);
  if (!named.ok() || *named != Algorithm::kAuto || NumericsOf(call) != Numerics::kFast ||
      !VendorRefusal(call.memory).empty()) {
    return false;
  }
  for (const auto& [first, last] : state_->auto_choice->profile().vendor_all_reduce_bytes) {
    if (bytes >= static_cast<size_t>(first) && bytes <= static_cast<size_t>(last)) return true;
  }
  return false;
}

absl::string_view Communicator::VendorRefusal(MemoryKind memory) const {
  // Every rank of a call sees the same memory kind, thread level and kind of call, so all of them refuse together,
  // before any traffic.
  if (memory != MemoryKind::kHost) return "MPI's collective runs on host buffers (these are device memory)";
  if (ProgressThread::RunningACall() && !state_->vendor_on_any_thread) {
    return "a nonblocking call may run on the progress thread, which may call MPI only under MPI_THREAD_MULTIPLE";
  }
  return "";
}

void Communicator::PrepareVendor(MemoryKind memory, Resources* resources) {
  if (absl::string_view refusal = VendorRefusal(memory); !refusal.empty()) {
    resources->vendor_refusal = refusal;
    return;
  }
  // The first call that takes the path makes its communicator: every rank of the call reaches here together.
  if (state_->vendor.comm == MPI_COMM_NULL && MPI_Comm_dup(state_->control_comm, &state_->vendor.comm) != MPI_SUCCESS) {
    state_->vendor.comm = MPI_COMM_NULL;
    resources->vendor_refusal = "MPI_Comm_dup failed";
    return;
  }
  resources->vendor = &state_->vendor;
}

absl::Status Communicator::RunAlgorithm(AlgorithmFn schedule, const CollectiveArgs& args, Resources& resources,
                                        bool synchronize) {
  KCOLL_RETURN_IF_ERROR(schedule(args, resources));
  if (args.op == ReduceOp::kAvg) {
    const size_t result_count = RecvCount(args, rank(), size());
    if (result_count > 0) {
      KCOLL_RETURN_IF_ERROR(
          state_->kernels->Divide(args.type, args.recv, result_count, ReducedRanks(args.collective, rank(), size())));
    }
  }
  // The result is in place when the call returns (a stream-ordered transport waits for its stream here), unless the
  // call is a nonblocking one on a stream: its request waits.
  if (!synchronize) return absl::OkStatus();
  absl::Status synchronized = state_->transport->Synchronize();
  if (synchronized.ok() && state_->stream_calls != nullptr) {
    state_->stream_calls->synchronized_through = state_->stream_calls->last_mark;
  }
  return synchronized;
}

void Communicator::Record(const CollectiveArgs& args, Algorithm algorithm, const PrimitiveCounts& before,
                          double seconds, const absl::Status& status) {
  CallRecord call;
  call.collective = args.collective;
  call.algorithm = algorithm;
  call.count = args.count;
  call.type = args.type;
  call.op = args.op;
  call.root = args.root;
  call.bytes = CallBytes(args, rank(), size());
  call.seconds = seconds;
  call.primitives = state_->counters.total;
  call.primitives -= before;
  Tally(call, state_->counters.Entry(args.collective, algorithm), status);
}

void Communicator::Tally(const CallRecord& call, CollectiveCounts& entry, const absl::Status& status) {
  ++entry.calls;
  entry.bytes += call.bytes;
  entry.seconds += call.seconds;
  entry.primitives += call.primitives;
  if (state_->logger.Enabled(LogLevel::kTrace) && !state_->measuring_inline_limit)
    state_->logger.Log(LogLevel::kTrace, DescribeCall(state_->topology, call, status));
}

}  // namespace kcoll
