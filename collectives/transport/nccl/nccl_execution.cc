#include "collectives/transport/nccl/nccl_execution.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/env.h"
#include "base/status_macros.h"
#include "collectives/transport/connect_peers.h"
#include "collectives/transport/cuda/cuda_errors.h"
#include "collectives/transport/cuda/gpu_placement.h"
#include "collectives/transport/mpi/agreement.h"
#include "collectives/transport/mpi/host_ranks.h"
#include "collectives/transport/nccl/nccl_transport.h"

namespace kcoll {

absl::StatusOr<Execution> MakeNcclExecution(ExecutionRequest request) {
  std::unique_ptr<MpiTransport> mpi = std::move(request.mpi);
  const GpuOptions& gpu = request.gpu;
  // Settings every rank reads alike: failing here fails every rank the same way, before any traffic.
  std::vector<int> devices = gpu.cuda_devices;
  if (devices.empty()) {
    if (const char* env = GetEnv("KCOLL_CUDA_DEVICE")) {
      KCOLL_ASSIGN_OR_RETURN(devices, ParseCudaDeviceList(env, "KCOLL_CUDA_DEVICE"));
    }
  }
  Execution out;
  // NCCL and the kernels share the stream: no fence between a kernel and the transfer that reads its output.
  KCOLL_ASSIGN_OR_RETURN(out.kernels, MakeKernels(ExecBackend::kCuda, /*synchronous=*/false));
  KCOLL_ASSIGN_OR_RETURN(CudaPlacement placement, CudaKernelsPlacement());

  // Per-rank facts (how many devices this rank sees, where Kokkos runs): agreed on before NCCL is touched. The GPU
  // follows the rank's place on its host (emulated nodes do not change which GPUs it sees).
  const HostRanks host = RanksOnThisHost(mpi->comm());
  absl::StatusOr<int> device = CudaDeviceCount();
  if (device.ok()) device = ChooseCudaDevice(host.rank, host.size, *device, devices);
  absl::Status local = device.status();
  if (local.ok()) local = CheckKokkosDevice(*device, placement.device, host.rank);
  KCOLL_RETURN_IF_ERROR(AgreeAcrossRanks(mpi->comm(), local, "placing ranks on CUDA devices"));

  NcclTransportOptions options;
  options.device = *device;
  options.stream = static_cast<cudaStream_t>(placement.stream);
  options.timeout = request.timeout.timeout;
  KCOLL_ASSIGN_OR_RETURN(out.transport, NcclTransport::Create(mpi->comm(), options));
  // Every pair connected now, the same way on both ends, rather than by each algorithm's first (possibly one-sided)
  // group; agreed on, so that a rank that failed to connect fails every rank's creation.
  KCOLL_RETURN_IF_ERROR(AgreeAcrossRanks(mpi->comm(), ConnectEveryPeer(*out.transport), "connecting NCCL peers"));
  out.description = absl::StrCat("nccl, cuda kernels, device ", *device, " (local rank ", host.rank, " of ", host.size,
                                 "), timeout ", absl::FormatDuration(request.timeout.timeout));
  return out;
}

}  // namespace kcoll
