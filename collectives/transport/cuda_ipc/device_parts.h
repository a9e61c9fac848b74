// Registered device memory (Communicator::Allocate on a communicator with CUDA kernels): each rank of the node
// allocates its part on its own GPU (cudaMalloc, zero-filled) and exports it with cudaIpcGetMemHandle; every other
// rank opens it once (cudaIpcOpenMemHandle, peer access enabled when the ranks are on different GPUs; ranks sharing
// one GPU map the same GPU's memory). The zero-copy schedules' kernels then read and write peers' parts directly.
// Freeing closes the opened parts and frees this rank's own; Free and the destructor run only after the node's last
// barrier over the allocation, so no peer reads a part after its owner freed it.
//
// A build without the CUDA runtime has the same function, answering FailedPrecondition (device_parts_unavailable.cc).
#ifndef KCOLL_COLLECTIVES_TRANSPORT_CUDA_IPC_DEVICE_PARTS_H_
#define KCOLL_COLLECTIVES_TRANSPORT_CUDA_IPC_DEVICE_PARTS_H_

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "collectives/transport/mapped_parts.h"

namespace kcoll {

// A PartsMaker (mapped_parts.h) for device memory on the current CUDA device of each rank of `comm`, whose ranks
// share a host. Fails on every rank alike, naming the rank and the CUDA call that failed.
absl::StatusOr<std::unique_ptr<MappedParts>> MakeDeviceParts(MPI_Comm comm, const std::vector<uint64_t>& sizes);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_CUDA_IPC_DEVICE_PARTS_H_
