#include "collectives/transport_choice.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/env.h"
#include "collectives/transport/mpi/agreement.h"
#include "collectives/transport/mpi/mpi_transport.h"
#include "models/analysis/statistics.h"

namespace kcoll {
namespace {

constexpr int kRounds = 5;
constexpr absl::Duration kMeasurementTimeout = absl::Seconds(30);
constexpr int kSmallExchangesPerRound = 20;
constexpr int kLargeExchangesPerRound = 3;
// A scratch slot of the measuring kernels (they are discarded after).
constexpr int kSendSlot = 0, kRecvSlot = 1;

// One transport under measurement, with the kernels that give it device memory.
struct Candidate {
  Execution execution;
  void* send = nullptr;
  void* recv = nullptr;
  std::vector<double> small_us, large_us;
};

absl::StatusOr<Candidate> MakeCandidate(TransportKind kind, MPI_Comm comm, const GpuOptions& gpu,
                                        const TimeoutSettings& timeout) {
  absl::StatusOr<std::unique_ptr<MpiTransport>> mpi = MpiTransport::Create(comm, timeout.timeout, timeout.source);
  if (!mpi.ok()) return mpi.status();
  ExecutionRequest request;
  request.mpi = *std::move(mpi);
  request.backend = ExecBackend::kCuda;
  request.gpu = gpu;
  request.timeout = timeout;
  absl::StatusOr<Execution> execution = MakeExecution(kind, std::move(request));
  if (!execution.ok()) return execution.status();
  Candidate c;
  c.execution = *std::move(execution);
  absl::StatusOr<void*> send = c.execution.kernels->Scratch(kSendSlot, kLargeExchangeBytes);
  if (!send.ok()) return send.status();
  absl::StatusOr<void*> recv = c.execution.kernels->Scratch(kRecvSlot, kLargeExchangeBytes);
  if (!recv.ok()) return recv.status();
  c.send = *send;
  c.recv = *recv;
  return c;
}

// `times` exchanges of `bytes` with the ring neighbours; microseconds per exchange.
absl::StatusOr<double> TimeExchanges(Candidate& c, size_t bytes, int times) {
  Transport& t = *c.execution.transport;
  const int n = t.size(), me = t.rank();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < times; ++i) {
    absl::StatusOr<Transport::Request> sent = t.Send((me + 1) % n, c.send, bytes, 0);
    if (!sent.ok()) return sent.status();
    absl::StatusOr<Transport::Request> received = t.Recv((me + n - 1) % n, c.recv, bytes, 0);
    if (!received.ok()) return received.status();
    if (absl::Status s = t.WaitAll(); !s.ok()) return s;
    if (absl::Status s = t.Synchronize(); !s.ok()) return s;
  }
  const std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
  return took.count() / times;
}

absl::Status MeasureRound(Candidate& c, bool record) {
  absl::StatusOr<double> small = TimeExchanges(c, kSmallExchangeBytes, kSmallExchangesPerRound);
  if (!small.ok()) return small.status();
  absl::StatusOr<double> large = TimeExchanges(c, kLargeExchangeBytes, kLargeExchangesPerRound);
  if (!large.ok()) return large.status();
  if (record) {
    c.small_us.push_back(*small);
    c.large_us.push_back(*large);
  }
  return absl::OkStatus();
}

// Each rank's medians, the slowest rank's.
ExchangeTimes Slowest(const Candidate& c, MPI_Comm comm) {
  double medians[2] = {models::Median(c.small_us), models::Median(c.large_us)};
  MPI_Allreduce(MPI_IN_PLACE, medians, 2, MPI_DOUBLE, MPI_MAX, comm);
  return ExchangeTimes{medians[0], medians[1]};
}

}  // namespace

absl::StatusOr<std::optional<TransportKind>> ChooseTransportKind(std::optional<TransportKind> option) {
  if (option.has_value()) return option;
  const char* env = GetEnv("KCOLL_TRANSPORT");
  if (env == nullptr || absl::AsciiStrToLower(env) == "auto") return std::optional<TransportKind>();
  absl::StatusOr<TransportKind> parsed = ParseTransportKind(env);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("KCOLL_TRANSPORT: ", parsed.status().message(), " or auto"));
  }
  return std::optional<TransportKind>(*parsed);
}

TransportKind AutoTransport(const Topology& topology, ExecBackend backend) {
  (void)topology;  // several nodes: shared memory within each, MPI between them (the shm factory routes)
  return backend != ExecBackend::kCuda ? TransportKind::kShm : TransportKind::kMpi;
}

TransportDecision ChooseByExchangeTimes(const ExchangeTimes& cuda_ipc, const ExchangeTimes& mpi) {
  const bool faster = cuda_ipc.small_us <= mpi.small_us && cuda_ipc.large_us <= mpi.large_us;
  return TransportDecision{
      faster ? TransportKind::kCudaIpc : TransportKind::kMpi,
      absl::StrFormat("auto transport: %s, measured at creation (ring exchange, slowest rank's median, us, cuda_ipc / "
                      "mpi: 8 B %.1f / %.1f, 4 MiB %.1f / %.1f)%s",
                      faster ? "cuda_ipc" : "mpi", cuda_ipc.small_us, mpi.small_us, cuda_ipc.large_us, mpi.large_us,
                      faster ? "" : ": cuda_ipc was not faster at both sizes")};
}

TransportDecision ChooseDeviceTransport(MPI_Comm comm, const Topology& topology, const GpuOptions& gpu,
                                        const TimeoutSettings& timeout) {
  if (topology.nranks < 2) return {TransportKind::kMpi, "auto transport: mpi (one rank: nothing moves between ranks)"};
  if (topology.nnodes != 1) {
    return {TransportKind::kMpi, absl::StrCat("auto transport: mpi (ranks on ", topology.nnodes,
                                              " nodes; CUDA IPC within them is KCOLL_TRANSPORT=cuda_ipc)")};
  }
  // A transport that stalls here fails the measurement (and auto takes mpi) instead of hanging creation.
  TimeoutSettings bounded;
  bounded.timeout = std::min(timeout.timeout, kMeasurementTimeout);
  bounded.source = "the transport measurement at creation";
  absl::StatusOr<Candidate> ipc = MakeCandidate(TransportKind::kCudaIpc, comm, gpu, bounded);
  absl::Status made = AgreeAcrossRanks(comm, ipc.status(), "making the CUDA IPC transport");
  if (!made.ok()) {
    return {TransportKind::kMpi,
            absl::StrCat("auto transport: mpi (cuda_ipc cannot be made here: ", made.message(), ")")};
  }
  absl::StatusOr<Candidate> mpi = MakeCandidate(TransportKind::kMpi, comm, gpu, bounded);
  made = AgreeAcrossRanks(comm, mpi.status(), "making the MPI transport");
  if (!made.ok()) {
    // The mpi transport is made again by the communicator, which reports its error.
    return {TransportKind::kMpi, absl::StrCat("auto transport: mpi (not measured: ", made.message(), ")")};
  }
  // A warm-up round of each (connections, pinned buffers, the streams' first work), then interleaved rounds.
  absl::Status s;
  for (int round = 0; round <= kRounds && s.ok(); ++round) {
    s = MeasureRound(*ipc, round > 0);
    if (s.ok()) s = MeasureRound(*mpi, round > 0);
  }
  s = AgreeAcrossRanks(comm, s, "timing the exchanges");
  if (!s.ok())
    return {TransportKind::kMpi, absl::StrCat("auto transport: mpi (the measurement failed: ", s.message(), ")")};
  return ChooseByExchangeTimes(Slowest(*ipc, comm), Slowest(*mpi, comm));
}

}  // namespace kcoll
