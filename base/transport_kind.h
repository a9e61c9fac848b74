// Which network a communicator's transfers go over, and which memory each network moves: the list of transports.
// The names, the list the communicator builds its transport from (collectives/transport/transports.cc) and the way
// device buffers reach a transport (collectives/transport/device_path.cc) are expanded from it, so a new transport
// is a folder under collectives/transport/ with its factory, its row here and its dependency in that folder's BUILD.
//
// KCOLL_TRANSPORTS(X): X(Enumerator, name, moves, node_memory, factory):
//   Enumerator   the transport is TransportKind::k<Enumerator>
//   name         what KCOLL_TRANSPORT, the logs and the benchmark call it
//   moves        the memory it moves (TransportMemory below)
//   node_memory  true when the ranks of a node read and write each other's buffers directly: no MPI call on the
//                path of a transfer within a node, so the inline lane, zero-copy algorithms and the shm profile apply
//   factory      absl::StatusOr<Execution> factory(ExecutionRequest request) (collectives/transport/execution.h)
#ifndef KCOLL_BASE_TRANSPORT_KIND_H_
#define KCOLL_BASE_TRANSPORT_KIND_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

// clang-format off
#define KCOLL_TRANSPORTS(X)                                                                                            \
  X(Mpi, "mpi", kHostStagingDevice, false, MakeMpiExecution)   /* MPI point-to-point */                                \
  X(Shm, "shm", kHost, true, MakeShmExecution)                 /* shared memory between the ranks of one host */       \
  X(Nccl, "nccl", kDevice, false, MakeNcclExecution)           /* NCCL send/recv on the kernels' CUDA stream */      \
  X(CudaIpc, "cuda_ipc", kDevice, false, MakeCudaIpcExecution) /* peers' GPU memory within a node, on the stream */
// clang-format on

namespace kcoll {

// Where a buffer lives, as far as a transport is concerned.
enum class MemoryKind {
  kHost,    // reachable by the CPU (HostSpace, CudaHostPinnedSpace, CudaUVMSpace)
  kDevice,  // GPU memory only (CudaSpace)
};

// The memory a transport moves.
enum class TransportMemory {
  kHost,               // host memory only: device buffers are refused
  kDevice,             // device memory only: host buffers are refused
  kHostStagingDevice,  // host memory, and device memory either read directly (an MPI that is CUDA-aware) or staged
                       // through pinned host buffers
};

enum class TransportKind {
#define KCOLL_TRANSPORT_ENUMERATOR(enumerator, name, moves, node_memory, factory) k##enumerator,
  KCOLL_TRANSPORTS(KCOLL_TRANSPORT_ENUMERATOR)
#undef KCOLL_TRANSPORT_ENUMERATOR
};

absl::string_view TransportKindName(TransportKind kind);  // "mpi", "shm", "nccl", "cuda_ipc"
// Case-insensitive; InvalidArgument names the text and the valid names.
absl::StatusOr<TransportKind> ParseTransportKind(absl::string_view text);

// The memory `kind` moves.
TransportMemory MemoryMovedBy(TransportKind kind);

// Whether the ranks of a node reach each other's buffers directly over `kind` (the node_memory column above).
bool SharesNodeMemory(TransportKind kind);

// A transport that moves device memory only runs with device kernels and is priced with NCCL's channel count.
inline bool MovesDeviceMemoryOnly(TransportKind kind) { return MemoryMovedBy(kind) == TransportMemory::kDevice; }

absl::string_view MemoryKindName(MemoryKind memory);  // "host", "device"

}  // namespace kcoll

#endif  // KCOLL_BASE_TRANSPORT_KIND_H_
