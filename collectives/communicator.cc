#include "collectives/communicator.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/env.h"
#include "base/status_macros.h"
#include "choice/default_algorithm.h"
#include "collectives/algorithms/registry.h"
#include "collectives/args_check.h"
#include "collectives/execution.h"
#include "collectives/observability/describe.h"
#include "collectives/topology/discover.h"
#include "collectives/topology/gpu_info.h"
#include "collectives/transport/mpi/mpi_transport.h"
#include "collectives/transport/mpi/mpi_wait.h"
#include "collectives/validate.h"

namespace kcoll {
namespace {

absl::StatusOr<ExecBackend> ChooseBackend(const CommunicatorOptions& options, TransportKind transport) {
  if (options.backend.has_value()) return *options.backend;
  if (const char* env = GetEnv("KCOLL_EXEC")) {
    auto parsed = ParseExecBackend(env);
    if (!parsed.ok()) return absl::InvalidArgumentError(absl::StrCat("KCOLL_EXEC: ", parsed.status().message()));
    return *parsed;
  }
  return transport == TransportKind::kNccl ? ExecBackend::kCuda : ExecBackend::kSerial;
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

// A profile that fails to load on some ranks only (a file missing on one node) must fail Create on every rank, or
// the others would go on to wait for them in the first collective.
absl::Status AgreeOnProfile(MPI_Comm comm, const absl::Status& local,
                            absl::Duration timeout = absl::InfiniteDuration()) {
  // On the heap: a timed-out reduction cannot be cancelled, and MPI may still write into it later.
  auto failed_on = std::make_unique<int>(local.ok() ? 0 : 1);
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Iallreduce(MPI_IN_PLACE, failed_on.get(), 1, MPI_INT, MPI_SUM, comm, &request);
  std::vector<int> scratch;
  absl::StatusOr<bool> done = WaitForRequests(&request, 1, timeout, &scratch);
  if (!done.ok()) return done.status();
  if (!*done) {
    failed_on.release();  // left to MPI: see above
    return absl::DeadlineExceededError(
        absl::StrCat("SetProfile: not every rank called it within ", absl::FormatDuration(timeout)));
  }
  const int failed = *failed_on;
  if (!local.ok()) return local;
  if (failed > 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("the profile failed to load on ", failed, " other rank(s); see their error"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Communicator>> Communicator::Create(MPI_Comm comm, const CommunicatorOptions& options) {
  KCOLL_ASSIGN_OR_RETURN(std::optional<TransportKind> asked, ChooseTransportKind(options.transport));
  KCOLL_ASSIGN_OR_RETURN(ExecBackend backend, ChooseBackend(options, asked.value_or(TransportKind::kMpi)));
  KCOLL_ASSIGN_OR_RETURN(bool check_args, ChooseCheckArgs(options));
  KCOLL_ASSIGN_OR_RETURN(TimeoutSettings timeout,
                         ChooseTimeout(options.timeout, options.on_timeout, asked.value_or(TransportKind::kMpi)));
  KCOLL_ASSIGN_OR_RETURN(LogConfig log_config, LogConfigFromEnv());
  std::unique_ptr<Communicator> c(new Communicator());
  c->backend_ = backend;
  KCOLL_ASSIGN_OR_RETURN(std::unique_ptr<MpiTransport> mpi, MpiTransport::Create(comm));
  TopologyOptions topology_options;
  topology_options.ranks_per_node = options.ranks_per_node;
  topology_options.nchannels = options.nchannels;
  topology_options.default_nchannels = asked == TransportKind::kNccl ? kDefaultChannels : kHostDefaultChannels;
  absl::Status gpu_status;
  if (backend == ExecBackend::kCuda) {
    absl::StatusOr<std::optional<GpuInfo>> gpu = CurrentCudaDevice();
    if (gpu.ok()) topology_options.gpu = *gpu;
    gpu_status = gpu.status();
  }
  KCOLL_ASSIGN_OR_RETURN(c->topology_, DiscoverTopology(mpi->comm(), topology_options));
  const TransportKind transport = asked.value_or(AutoTransport(c->topology_, backend));
  c->transport_kind_ = transport;
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  KCOLL_ASSIGN_OR_RETURN(c->logger_, Logger::Create(log_config, world_rank, c->topology_.rank));
  absl::StatusOr<ProfileChoice> profile = ChooseProfile(options.profile_path, transport);
  KCOLL_RETURN_IF_ERROR(AgreeOnProfile(mpi->comm(), profile.status()));
  KCOLL_ASSIGN_OR_RETURN(AutoChoice auto_choice, AutoChoice::Create(c->topology_, *std::move(profile)));
  c->auto_choice_ = std::make_unique<AutoChoice>(std::move(auto_choice));
  if (MPI_Comm_dup(mpi->comm(), &c->control_comm_) != MPI_SUCCESS) {
    return absl::InternalError("MPI_Comm_dup of the control communicator failed");
  }
  c->check_args_ = check_args;
  if (const char* algo = GetEnv("KCOLL_ALGO")) {
    for (Collective collective : AllCollectives()) {
      c->algo_override_.push_back(ParseAlgorithmOverride(algo, collective));
    }
  }
  c->timeout_ = timeout;
  // The transport (MPI, shared memory, or NCCL bootstrapped over MPI) and the kernels that go with it.
  ExecutionRequest request;
  request.mpi = std::move(mpi);
  request.backend = backend;
  request.gpu = options.gpu;
  request.timeout = timeout;
  request.node_of = c->topology_.node_of;
  KCOLL_ASSIGN_OR_RETURN(Execution execution, MakeExecution(transport, std::move(request)));
  c->execution_ = std::move(execution.description);
  // Every primitive an algorithm issues is counted on its way through these two decorators.
  c->kernels_ = std::make_unique<CountingKernels>(std::move(execution.kernels), c->counters_.total);
  c->transport_ = std::make_unique<CountingTransport>(std::move(execution.transport), c->topology_, c->counters_.total);

  if (!gpu_status.ok()) c->logger_.Log(LogLevel::kWarn, absl::StrCat("no GPU fields: ", gpu_status.message()));
  if (c->logger_.Enabled(LogLevel::kInfo)) {
    // Rank 0 prints the whole block; every other rank its own line, so that each per-rank log names its rank.
    const std::vector<std::string> lines =
        c->rank() == 0 ? c->Describe() : std::vector<std::string>{DescribeRank(c->topology_, c->rank())};
    c->logger_.Log(LogLevel::kInfo, absl::StrJoin(lines, "\n"));
  }
  return c;
}

Communicator::~Communicator() { Finalize().IgnoreError(); }

int Communicator::rank() const { return topology_.rank; }
int Communicator::size() const { return topology_.nranks; }

std::vector<std::string> Communicator::Describe() const {
  std::vector<std::string> lines = DescribeTopology(
      topology_, CommInfo{std::string(ExecBackendName(backend_)),
                          transport_ ? std::string(transport_->name()) : "finalized", transport_ ? execution_ : ""});
  if (auto_choice_ != nullptr) {
    lines.push_back(
        absl::StrCat("comm ", FormatCommId(topology_.comm_id), " auto prices with: ", auto_choice_->profile_source()));
  }
  return lines;
}

std::string Communicator::DescribeJson() const {
  nlohmann::json j = TopologyToJson(topology_);
  j["backend"] = std::string(ExecBackendName(backend_));
  j["transport"] = transport_ ? std::string(transport_->name()) : "finalized";
  if (auto_choice_ != nullptr) j["profile"] = auto_choice_->profile_source();
  j["counters"] = CountersToJson(counters_);
  return j.dump();
}

absl::Status Communicator::Finalize() {
  int mpi_finalized = 0;
  MPI_Finalized(&mpi_finalized);
  if (!finalized() && !KokkosRunning()) {
    // Kokkos was finalised first: its memory can no longer be freed. The scratch is left behind (the process is
    // ending); the transport is released as usual.
    logger_.Log(LogLevel::kWarn, "Finalize after Kokkos::finalize: the kernels' scratch memory is not freed");
    kernels_.release();
  }
  if (!finalized() && mpi_finalized) {
    // MPI was finalised first: nothing of MPI can be called, nor needs to be (MPI_Finalize freed the communicators).
    logger_.Log(LogLevel::kWarn, "Finalize after MPI_Finalize: MPI's resources were released by MPI_Finalize");
    control_comm_ = MPI_COMM_NULL;
  }
  if (!finalized() && logger_.Enabled(LogLevel::kInfo)) {
    logger_.Log(LogLevel::kInfo, absl::StrJoin(DescribeCounters(topology_, counters_), "\n"));
  }
  // With a timeout, leave nothing behind that could reach a later communicator (see Transport::Quiesce). Without
  // one, Finalize does not wait for the other ranks, as MPI_Comm_free does not.
  if (!finalized() && !mpi_finalized && broken_.ok() && timeout_.timeout != absl::InfiniteDuration()) {
    absl::Status quiet = transport_->Quiesce(timeout_.timeout);
    if (!quiet.ok()) logger_.Log(LogLevel::kWarn, absl::StrCat("Finalize: ", quiet.message()));
  }
  // The transport first: destroying it completes (or withdraws) the transfers still in flight, some of which may
  // read or write the kernels' scratch (a stream-ordered transport's last group); then the scratch can go.
  transport_.reset();
  kernels_.reset();
  registered_.reset();
  if (control_comm_ != MPI_COMM_NULL) {
    // A broken communicator's control exchanges may still be pending: its communicator is kept, as the transport's.
    if (!mpi_finalized && broken_.ok()) MPI_Comm_free(&control_comm_);
    control_comm_ = MPI_COMM_NULL;
  }
  return absl::OkStatus();
}

absl::Status Communicator::CheckUsable(absl::string_view what) const {
  if (finalized()) return absl::InvalidArgumentError(absl::StrCat(what, ": communicator used after Finalize()"));
  int mpi_finalized = 0;
  MPI_Finalized(&mpi_finalized);
  if (mpi_finalized) {
    return absl::FailedPreconditionError(
        absl::StrCat(what, ": MPI was finalized before the communicator (call Finalize() before MPI_Finalize)"));
  }
  if (!KokkosRunning()) {
    return absl::FailedPreconditionError(
        absl::StrCat(what, ": Kokkos was finalized before the communicator (call Finalize() before Kokkos::finalize)"));
  }
  if (!broken_.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        what, ": the communicator is broken by an earlier error (create a new one): ", broken_.ToString()));
  }
  return absl::OkStatus();
}

absl::Status Communicator::Break(absl::Status error) {
  if (broken_.ok()) broken_ = error;
  transport_->Abandon();
  if (error.code() == absl::StatusCode::kDeadlineExceeded && timeout_.on_timeout == OnTimeout::kAbort) {
    std::fprintf(stderr, "kcoll: %s (KCOLL_ON_TIMEOUT=abort: ending the job)\n", error.ToString().c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, kTimeoutExitCode);
  }
  return error;
}

absl::Status Communicator::SetProfile(const std::string& profile_path) {
  KCOLL_RETURN_IF_ERROR(CheckUsable("SetProfile"));
  absl::StatusOr<ProfileChoice> profile = ChooseProfile(profile_path, transport_kind_);
  absl::StatusOr<AutoChoice> choice =
      profile.ok() ? AutoChoice::Create(topology_, *std::move(profile)) : absl::StatusOr<AutoChoice>(profile.status());
  absl::Status agreed = AgreeOnProfile(control_comm_, choice.status(), timeout_.timeout);
  if (agreed.code() == absl::StatusCode::kDeadlineExceeded) return Break(agreed);
  KCOLL_RETURN_IF_ERROR(agreed);
  auto_choice_ = std::make_unique<AutoChoice>(*std::move(choice));
  return absl::OkStatus();
}

absl::StatusOr<Algorithm> Communicator::ResolveAlgorithm(Collective collective, size_t bytes,
                                                         Algorithm requested) const {
  if (requested != Algorithm::kAuto) return requested;
  if (static_cast<size_t>(collective) < algo_override_.size()) {
    KCOLL_ASSIGN_OR_RETURN(std::optional<Algorithm> from_env, algo_override_[static_cast<size_t>(collective)]);
    if (from_env.has_value()) return *from_env;
  }
  // Most programs repeat one call (a training step, a solver iteration): its choice is kept without a lookup.
  if (last_choice_.valid && last_choice_.collective == collective && last_choice_.bytes == bytes) {
    return last_choice_.algorithm;
  }
  KCOLL_ASSIGN_OR_RETURN(Algorithm chosen, auto_choice_->Choose(collective, bytes));
  last_choice_ = LastChoice{collective, bytes, chosen, true};
  return chosen;
}

namespace {

CollectiveArgs MakeArgs(Collective collective, const void* send, void* recv, size_t count, DataType type, ReduceOp op,
                        int root, const CallOptions& options) {
  return CollectiveArgs{collective, send, recv, count, type, op, root, options.tuning};
}

}  // namespace

absl::Status Communicator::AllReduce(const void* send, void* recv, size_t count, DataType type, ReduceOp op,
                                     const CallOptions& options, MemoryKind memory) {
  return Run(MakeArgs(Collective::kAllReduce, send, recv, count, type, op, 0, options), options.algorithm, memory);
}

absl::Status Communicator::ReduceScatter(const void* send, void* recv, size_t recvcount, DataType type, ReduceOp op,
                                         const CallOptions& options, MemoryKind memory) {
  return Run(MakeArgs(Collective::kReduceScatter, send, recv, recvcount, type, op, 0, options), options.algorithm,
             memory);
}

absl::Status Communicator::AllGather(const void* send, void* recv, size_t sendcount, DataType type,
                                     const CallOptions& options, MemoryKind memory) {
  return Run(MakeArgs(Collective::kAllGather, send, recv, sendcount, type, ReduceOp::kSum, 0, options),
             options.algorithm, memory);
}

absl::Status Communicator::Broadcast(const void* send, void* recv, size_t count, DataType type, int root,
                                     const CallOptions& options, MemoryKind memory) {
  return Run(MakeArgs(Collective::kBroadcast, send, recv, count, type, ReduceOp::kSum, root, options),
             options.algorithm, memory);
}

absl::Status Communicator::Reduce(const void* send, void* recv, size_t count, DataType type, ReduceOp op, int root,
                                  const CallOptions& options, MemoryKind memory) {
  return Run(MakeArgs(Collective::kReduce, send, recv, count, type, op, root, options), options.algorithm, memory);
}

absl::Status Communicator::AllToAll(const void* send, void* recv, size_t count, DataType type,
                                    const CallOptions& options, MemoryKind memory) {
  return Run(MakeArgs(Collective::kAllToAll, send, recv, count, type, ReduceOp::kSum, 0, options), options.algorithm,
             memory);
}

absl::Status Communicator::Gather(const void* send, void* recv, size_t count, DataType type, int root,
                                  const CallOptions& options, MemoryKind memory) {
  return Run(MakeArgs(Collective::kGather, send, recv, count, type, ReduceOp::kSum, root, options), options.algorithm,
             memory);
}

absl::Status Communicator::Scatter(const void* send, void* recv, size_t count, DataType type, int root,
                                   const CallOptions& options, MemoryKind memory) {
  return Run(MakeArgs(Collective::kScatter, send, recv, count, type, ReduceOp::kSum, root, options), options.algorithm,
             memory);
}

absl::Status Communicator::SendRecv(const void* send, void* recv, size_t count, DataType type,
                                    const CallOptions& options, MemoryKind memory) {
  return Run(MakeArgs(Collective::kSendRecv, send, recv, count, type, ReduceOp::kSum, 0, options), options.algorithm,
             memory);
}

absl::Status Communicator::Barrier(const CallOptions& options) {
  return Run(MakeArgs(Collective::kBarrier, nullptr, nullptr, 0, DataType::kUint8, ReduceOp::kSum, 0, options),
             options.algorithm, MemoryKind::kHost);
}

absl::Status Communicator::Call(Collective collective, const void* send, void* recv, size_t count, DataType type,
                                ReduceOp op, int root, const CallOptions& options, MemoryKind memory) {
  if (collective == Collective::kBarrier) return Barrier(options);
  return Run(MakeArgs(collective, send, recv, count, type, Reduces(collective) ? op : ReduceOp::kSum,
                      IsRooted(collective) ? root : 0, options),
             options.algorithm, memory);
}

absl::Status Communicator::RejectCall(Collective collective, absl::Status rejection) {
  if (rejection.ok() || !CheckUsable(CollectiveName(collective)).ok() || !check_args_) return rejection;
  CollectiveArgs args;
  args.collective = collective;
  absl::Status checked = CheckArgsAcrossRanks(control_comm_, args, Algorithm::kAuto, rejection, timeout_.timeout);
  if (checked.code() == absl::StatusCode::kDeadlineExceeded) return Break(checked);
  return checked;
}

absl::Status Communicator::Run(CollectiveArgs args, Algorithm requested, MemoryKind memory) {
  KCOLL_RETURN_IF_ERROR(CheckUsable(CollectiveName(args.collective)));
  // Every check that can fail happens before any traffic, so ranks given the same arguments fail together.
  const bool reachable = transport_->CanReach(memory) && memory == kernels_->memory();
  absl::Status local = ValidateArgs(args, rank(), size(), memory, reachable);
  Algorithm algorithm = Algorithm::kAuto;
  AlgorithmFn fn = nullptr;
  if (local.ok()) {
    absl::StatusOr<Algorithm> resolved =
        ResolveAlgorithm(args.collective, args.count * DataTypeSize(args.type), requested);
    if (resolved.ok()) algorithm = *resolved;
    absl::StatusOr<AlgorithmFn> found =
        resolved.ok() ? FindAlgorithm(args.collective, algorithm) : absl::StatusOr<AlgorithmFn>(resolved.status());
    if (found.ok()) fn = *found;
    local = found.status();
  }
  if (check_args_) {
    absl::Status checked = CheckArgsAcrossRanks(control_comm_, args, algorithm, local, timeout_.timeout);
    if (checked.code() == absl::StatusCode::kDeadlineExceeded) return Break(checked);
    KCOLL_RETURN_IF_ERROR(checked);
  }
  KCOLL_RETURN_IF_ERROR(local);
  const PrimitiveCounts before = counters_.total;
  // Ticks, not steady_clock: two clock reads were a tenth of an 8-byte AllReduce. Transports read the real clock
  // only when they report a timeout.
  const uint64_t start = clock_.Now();
  Resources resources{*transport_, *kernels_, topology_};
  PeerMemory::Buffers peer_buffers;
  if (MayRunDirect(args, requested, algorithm, memory)) {
    // Every rank learns whether every rank's buffers are registered; `auto` then runs zero-copy.
    const size_t elem = DataTypeSize(args.type);
    absl::StatusOr<bool> registered =
        registered_->Exchange(Transport::CallInfo{CollectiveName(args.collective), AlgorithmName(requested),
                                                  CallSignature(args, requested), &clock_, start},
                              args.send, SendCount(args, rank(), size()) * elem, args.recv,
                              RecvCount(args, rank(), size()) * elem, &peer_buffers);
    if (registered.status().code() == absl::StatusCode::kDeadlineExceeded) return Break(registered.status());
    KCOLL_RETURN_IF_ERROR(registered.status());
    resources.peer_memory = registered_.get();
    if (*registered) {
      resources.peer_buffers = &peer_buffers;
      algorithm = Algorithm::kDirect;
      KCOLL_ASSIGN_OR_RETURN(fn, FindAlgorithm(args.collective, algorithm));
    }
  }
  transport_->BeginCall(Transport::CallInfo{CollectiveName(args.collective), AlgorithmName(algorithm),
                                            CallSignature(args, algorithm), &clock_, start});
  absl::Status status = RunAlgorithm(fn, args, resources);
  const double seconds = clock_.Seconds(clock_.Now() - start);
  Record(args, algorithm, before, seconds, status);
  // A call that failed once this rank had posted transfers leaves the ranks out of step: nothing may run on this
  // communicator any more. One refused before any transfer (an algorithm rejecting its tuning) leaves it usable.
  const bool posted =
      counters_.total.send.calls != before.send.calls || counters_.total.recv.calls != before.recv.calls;
  if (!status.ok() && (posted || status.code() == absl::StatusCode::kDeadlineExceeded)) return Break(status);
  return status;
}

absl::Status Communicator::RunAlgorithm(AlgorithmFn fn, const CollectiveArgs& args, Resources& resources) {
  KCOLL_RETURN_IF_ERROR(fn(args, resources));
  if (args.op == ReduceOp::kAvg) {
    const size_t result_count = RecvCount(args, rank(), size());
    if (result_count > 0) KCOLL_RETURN_IF_ERROR(kernels_->Divide(args.type, args.recv, result_count, size()));
  }
  // The result is in place when the call returns (a stream-ordered transport waits for its stream here).
  return transport_->Synchronize();
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
  call.bytes = NcclTestsBytes(args.collective, args.count, DataTypeSize(args.type), size());
  call.seconds = seconds;
  call.primitives = counters_.total;
  call.primitives -= before;
  CollectiveCounts& entry = counters_.Entry(args.collective, algorithm);
  ++entry.calls;
  entry.bytes += call.bytes;
  entry.seconds += seconds;
  entry.primitives += call.primitives;
  if (logger_.Enabled(LogLevel::kTrace)) logger_.Log(LogLevel::kTrace, DescribeCall(topology_, call, status));
}

}  // namespace kcoll
