// The CUDA IPC transport's factory: the ranks of one node move device buffers through each other's GPU memory, on
// the stream of Kokkos' Cuda instance (kernels not fenced, as over NCCL). A build without the CUDA runtime has the same
// function, returning FailedPrecondition (cuda_ipc_unavailable.cc); the BUILD file picks which.
//
// Settings, read alike on every rank: KCOLL_CUDA_IPC_SLOTS (slots per channel, default 4) and
// KCOLL_CUDA_IPC_SLOT_BYTES (bytes per slot, default 1 MiB): each rank's inbox holds slots x slot bytes per peer.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_CUDA_IPC_CUDA_IPC_EXECUTION_H_
#define KCOLL_COLLECTIVES_TRANSPORT_CUDA_IPC_CUDA_IPC_EXECUTION_H_

#include "absl/status/statusor.h"
#include "collectives/transport/cuda_ipc/ipc_schedule.h"
#include "collectives/transport/execution.h"

namespace kcoll {

absl::StatusOr<Execution> MakeCudaIpcExecution(ExecutionRequest request);

// The channel shape from KCOLL_CUDA_IPC_SLOTS and KCOLL_CUDA_IPC_SLOT_BYTES (defaults where unset); InvalidArgument
// naming the setting and its value when it is not a size, is 0, or asks for more than 64 slots or a slot over 1 GiB.
absl::StatusOr<cuda_ipc::ChannelShape> ChannelShapeFromEnv();

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_CUDA_IPC_CUDA_IPC_EXECUTION_H_
