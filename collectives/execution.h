// The transport and kernels a communicator runs on, built from its options in one place so that the Communicator
// only says which it wants:
//
//   transport  backend         what runs
//   mpi        serial/openmp   MPI point-to-point on host buffers, kernels fenced after every launch (the default)
//   mpi        cuda            device buffers straight to a CUDA-aware MPI, else staged through pinned host memory
//   nccl       cuda            NCCL send/recv on the stream of Kokkos' Cuda instance, kernels not fenced: transfers
//                              and kernels are ordered by the stream, and the collective synchronises once at its end
//
// Asking for NCCL from a build without it (no nccl.h/libnccl found by the repository rule) is a FailedPrecondition
// that says how to get it.
#ifndef KCOLL_COLLECTIVES_EXECUTION_H_
#define KCOLL_COLLECTIVES_EXECUTION_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "collectives/kernels/backend.h"
#include "collectives/kernels/kernels.h"
#include "collectives/topology/topology.h"
#include "collectives/transport/mpi/mpi_transport.h"
#include "collectives/transport/transport.h"
#include "collectives/transport/transport_kind.h"

namespace kcoll {

struct GpuOptions {
  // CUDA device for this node's ranks: one for all, or one per local rank. Empty: $KCOLL_CUDA_DEVICE if set, else
  // device = local rank (see collectives/transport/cuda/gpu_placement.h).
  std::vector<int> cuda_devices;
  // MPI with device buffers: whether the MPI reads device memory. Unset: $KCOLL_MPI_CUDA_AWARE if set, else detected.
  std::optional<bool> mpi_cuda_aware;
};

// `option` if set, else $KCOLL_TRANSPORT, else kMpi.
absl::StatusOr<TransportKind> ChooseTransportKind(std::optional<TransportKind> option);

struct Execution {
  std::unique_ptr<Transport> transport;
  std::unique_ptr<Kernels> kernels;
  std::string description;  // one line: transport, path, device
};

// Collective over the communicator of `mpi`, which becomes the transport (kMpi) or bootstraps NCCL and is released
// (kNccl). The checks that can differ between ranks (devices) are agreed on before any NCCL call. `timeout` bounds
// every wait of the NCCL transport (the MPI transport carries its own: MpiTransport::set_timeout).
absl::StatusOr<Execution> MakeExecution(std::unique_ptr<MpiTransport> mpi, TransportKind kind, ExecBackend backend,
                                        const GpuOptions& gpu, absl::Duration timeout = absl::InfiniteDuration());

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_EXECUTION_H_
