// What an application tells a communicator when it creates it (CommunicatorOptions) and a collective when it calls
// it (CallOptions), and the settings a communicator reports back. Every field has a default that reads the
// environment first, so a program that passes nothing is configured by KCOLL_* variables (docs/environment.md).
#ifndef KCOLL_COLLECTIVES_OPTIONS_H_
#define KCOLL_COLLECTIVES_OPTIONS_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "base/names.h"
#include "base/transport_kind.h"

namespace kcoll {

// Which Kokkos execution space runs a communicator's kernels.
enum class ExecBackend {
  kSerial,  // one thread per rank: the right choice when ranks already fill the cores
  kOpenMP,  // Kokkos' OpenMP threads (as many as Kokkos was initialised with)
  kCuda,    // the default CUDA stream of Kokkos' Cuda instance
};

absl::string_view ExecBackendName(ExecBackend backend);  // "serial", "openmp", "cuda"
// Case-insensitive; InvalidArgument names the text and the valid names.
absl::StatusOr<ExecBackend> ParseExecBackend(absl::string_view text);

// How a communicator's nonblocking calls (collectives/request.h) move while the application computes. Over NCCL they
// are stream-ordered work whatever this says: the call enqueues its transfers and kernels, and the request completes
// when the stream has run them.
enum class Progress {
  kThread,  // a thread of the communicator's runs them, one after another, in the order they were issued
  kEager,   // each runs to completion inside the call that issues it: no overlap, and no thread
};

absl::string_view ProgressName(Progress progress);  // "thread", "eager"
// Case-insensitive; InvalidArgument names the text and the valid names.
absl::StatusOr<Progress> ParseProgress(absl::string_view text);

// What a floating-point reduction promises about its bits (docs/numerics.md).
enum class Numerics {
  kFast,           // the fastest schedule; the order of the terms, and so the rounding, depends on the algorithm,
                   // the message size, the machine profile and the rank placement
  kDeterministic,  // for a fixed rank count, the same bits whatever the algorithm, transport, execution space,
                   // chunking, placement, fusion and message size: every element's contributions are combined in
                   // rank order, ((x0 op x1) op x2) op ... op x(n-1) (16-bit floats accumulated in float)
  kExact,          // floating-point sums and averages whose bits depend only on the terms, not on their order, the
                   // rank count or how terms were grouped (collectives/kernels/exact_sum.h); other ops of
                   // floating-point data combine in rank order, as kDeterministic
};

absl::string_view NumericsName(Numerics numerics);  // "fast", "deterministic", "exact"
// Case-insensitive; InvalidArgument names the text and the valid names.
absl::StatusOr<Numerics> ParseNumerics(absl::string_view text);

// What a timeout does: the call returns DeadlineExceeded, or the rank prints it and ends the job.
enum class OnTimeout { kReturn, kAbort };

// The timeout in force on a communicator (collectives/transport/timeout.h says how it is chosen).
struct TimeoutSettings {
  absl::Duration timeout = absl::InfiniteDuration();  // InfiniteDuration: wait forever
  OnTimeout on_timeout = OnTimeout::kReturn;
  std::string source;  // where `timeout` came from, for messages: "KCOLL_TIMEOUT", "CommunicatorOptions::timeout"
};

struct GpuOptions {
  // CUDA device for this node's ranks: one for all, or one per local rank. Empty: $KCOLL_CUDA_DEVICE if set, else
  // device = local rank (see collectives/transport/cuda/gpu_placement.h).
  std::vector<int> cuda_devices;
  // MPI with device buffers: whether the MPI reads device memory. Unset: $KCOLL_MPI_CUDA_AWARE if set, else detected.
  std::optional<bool> mpi_cuda_aware;
};

struct CommunicatorOptions {
  // Execution space for the reduce/copy kernels. Unset: $KCOLL_EXEC if set, else serial (one thread per rank,
  // the right choice when the ranks already occupy the cores), or cuda when the transport is NCCL.
  std::optional<ExecBackend> backend;
  // Network for the transfers (see collectives/transport_choice.h). Unset: $KCOLL_TRANSPORT if set (mpi, shm, nccl or
  // auto), else auto: with host kernels, shared memory within each node and MPI between nodes; else MPI.
  std::optional<TransportKind> transport;
  // Devices and MPI CUDA-awareness for the cuda backend.
  GpuOptions gpu;
  // The longest a collective may wait without any of its transfers completing; then it returns DeadlineExceeded on
  // every rank still waiting, and the communicator is broken (collectives/transport/timeout.h). Zero or
  // absl::InfiniteDuration(): no limit. Unset: $KCOLL_TIMEOUT ("30s", "2m", "0"), else no limit over MPI (MPI's own
  // behaviour) and 5 minutes over NCCL ($KCOLL_NCCL_TIMEOUT is read there too).
  std::optional<absl::Duration> timeout;
  // What a timeout does: return DeadlineExceeded (kReturn) or print it and end the job with MPI_Abort (kAbort).
  // Unset: $KCOLL_ON_TIMEOUT ("return" | "abort"), else kReturn.
  std::optional<OnTimeout> on_timeout;
  // Emulated nodes: consecutive groups of this many ranks form a node. 0: $KCOLL_RANKS_PER_NODE if set, else the
  // nodes MPI reports (ranks that share memory). Must divide the number of ranks.
  int ranks_per_node = 0;
  // Before every collective, compare its arguments (collective, count, type, op, root, algorithm) across ranks with
  // one small MPI allgather, and fail every rank with InvalidArgument naming the first rank and field that differ,
  // instead of hanging in mismatched transfers. A rank that rejects its own arguments fails the others too. Costs
  // one latency-bound collective per call; must be the same on every rank. Unset: $KCOLL_CHECK_ARGS (0 or 1), else
  // off.
  std::optional<bool> check_args;
  // Rings the topology builds (1..32; see base/graph.h). 0: $KCOLL_NCHANNELS if set, else 1 on the MPI transport and 2
  // on NCCL (collectives/topology/discover.h says why).
  int nchannels = 0;
  // The machine profile (a //bench:calibrate JSON file) `auto` chooses algorithms with (choice/auto_choice.h).
  // Empty: $KCOLL_PROFILE if set, else the built-in profile. A file that cannot be read or is invalid fails Create.
  std::string profile_path;
  // How nonblocking calls progress. Unset: $KCOLL_PROGRESS (thread | eager), else a thread where the communicator can
  // run one (serial kernels, and either MPI_THREAD_MULTIPLE or one node over shared memory, whose transfers make no
  // MPI call), else eager. Asking for a thread where it cannot run fails Create with the reason.
  std::optional<Progress> progress;
  // What floating-point reductions promise about their bits (Numerics). Unset: $KCOLL_NUMERICS (fast |
  // deterministic | exact), else fast. A call's CallOptions::numerics overrides it for that call.
  std::optional<Numerics> numerics;
};

// Tuning knobs some algorithms read; 0 means "the algorithm's default".
struct AlgorithmOptions {
  int nchannels = 0;       // pipelined ring: independent rings working on separate parts of the buffer
  size_t chunk_bytes = 0;  // pipelined ring / chain: bytes per pipeline stage
};

struct CallOptions {
  // kAuto: $KCOLL_ALGO (as it was when the communicator was created) if it names an algorithm for this collective,
  // else the registered algorithm the cost model predicts fastest for the size (choice/auto_choice.h).
  Algorithm algorithm = Algorithm::kAuto;
  AlgorithmOptions tuning;
  // Unset: the communicator's (CommunicatorOptions::numerics). Every rank passes the same.
  std::optional<Numerics> numerics;
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_OPTIONS_H_
