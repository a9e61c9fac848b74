// The CUDA IPC transport's factory: the ranks of one node move device buffers through each other's GPU memory, on
// the stream of Kokkos' Cuda instance (kernels not fenced, as over NCCL). A build without the CUDA runtime has the same
// function, returning FailedPrecondition (cuda_ipc_unavailable.cc); the BUILD file picks which.
//
// Ranks on several nodes (hosts, or emulated nodes of one host): CUDA IPC within each node and, between nodes, the
// transport KCOLL_CUDA_IPC_ACROSS names, behind one RoutedTransport: `mpi` (the default; device buffers staged
// through pinned host memory, or handed to a CUDA-aware MPI, as the mpi transport does) or `nccl` (NCCL over the
// whole communicator, which needs a GPU of its own for every rank). The hierarchical schedules then run their node
// phases over CUDA IPC and their network phase across.
//
// Settings, read alike on every rank: KCOLL_CUDA_IPC_SLOTS (slots per channel, default 4) and
// KCOLL_CUDA_IPC_SLOT_BYTES (bytes per slot, default 1 MiB): each rank's inbox holds slots x slot bytes per peer of
// its node; KCOLL_CUDA_IPC_ACROSS (mpi or nccl) between nodes.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_CUDA_IPC_CUDA_IPC_EXECUTION_H_
#define KCOLL_COLLECTIVES_TRANSPORT_CUDA_IPC_CUDA_IPC_EXECUTION_H_

#include "absl/status/statusor.h"
#include "base/transport_kind.h"
#include "collectives/transport/cuda_ipc/ipc_schedule.h"
#include "collectives/transport/execution.h"

namespace kcoll {

absl::StatusOr<Execution> MakeCudaIpcExecution(ExecutionRequest request);

// The channel shape from KCOLL_CUDA_IPC_SLOTS and KCOLL_CUDA_IPC_SLOT_BYTES (defaults where unset); InvalidArgument
// naming the setting and its value when it is not a size, is 0, or asks for more than 64 slots or a slot over 1 GiB.
absl::StatusOr<cuda_ipc::ChannelShape> ChannelShapeFromEnv();

// The transport between nodes from KCOLL_CUDA_IPC_ACROSS (unset: mpi); InvalidArgument naming the value otherwise.
absl::StatusOr<TransportKind> CrossNodeTransportFromEnv();

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_CUDA_IPC_CUDA_IPC_EXECUTION_H_
