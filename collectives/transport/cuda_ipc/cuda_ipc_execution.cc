#include "collectives/transport/cuda_ipc/cuda_ipc_execution.h"

#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/env.h"
#include "base/status_macros.h"
#include "collectives/transport/cuda/cuda_errors.h"
#include "collectives/transport/cuda/gpu_placement.h"
#include "collectives/transport/cuda_ipc/cuda_ipc_transport.h"
#include "collectives/transport/mpi/agreement.h"

namespace kcoll {
namespace {

// Whether every rank of `comm` is on this host and on one node of `node_of`: CUDA IPC reaches no further.
absl::Status CheckOneNode(MPI_Comm comm, const std::vector<int>& node_of) {
  int size = 0, local_size = 0, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  const std::set<int> nodes(node_of.begin(), node_of.end());
  if (nodes.size() > 1) {
    return absl::FailedPreconditionError(absl::StrCat(
        "transport 'cuda_ipc': the ", size, " ranks are on ", nodes.size(),
        " nodes, and CUDA IPC moves memory within a node only; use KCOLL_TRANSPORT=nccl or mpi across nodes"));
  }
  MPI_Comm host = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host);
  MPI_Comm_size(host, &local_size);
  MPI_Comm_free(&host);
  if (local_size == size) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat("transport 'cuda_ipc': the ", size, " ranks span several hosts (",
                                                    local_size,
                                                    " share this one); CUDA IPC moves memory within a "
                                                    "host only: use KCOLL_TRANSPORT=nccl or mpi"));
}

}  // namespace

absl::StatusOr<Execution> MakeCudaIpcExecution(ExecutionRequest request) {
  MPI_Comm comm = request.mpi->comm();
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // Settings every rank reads alike, and where each rank is: agreed on before any GPU memory is touched.
  absl::StatusOr<cuda_ipc::ChannelShape> shape = ChannelShapeFromEnv();
  std::vector<int> devices = request.gpu.cuda_devices;
  absl::Status local = shape.status();
  if (local.ok() && devices.empty()) {
    if (const char* env = GetEnv("KCOLL_CUDA_DEVICE")) {
      absl::StatusOr<std::vector<int>> parsed = ParseCudaDeviceList(env, "KCOLL_CUDA_DEVICE");
      if (parsed.ok()) devices = *parsed;
      local = parsed.status();
    }
  }
  if (local.ok()) local = CheckOneNode(comm, request.node_of);
  KCOLL_RETURN_IF_ERROR(AgreeAcrossRanks(comm, local, "checking the CUDA IPC transport's settings and node"));

  Execution out;
  KCOLL_ASSIGN_OR_RETURN(out.kernels, MakeKernels(ExecBackend::kCuda, /*synchronous=*/false));
  KCOLL_ASSIGN_OR_RETURN(CudaPlacement placement, CudaKernelsPlacement());
  absl::StatusOr<int> device = CudaDeviceCount();
  if (device.ok()) device = ChooseCudaDevice(rank, size, *device, devices);
  local = device.status();
  if (local.ok()) local = CheckKokkosDevice(*device, placement.device, rank);
  KCOLL_RETURN_IF_ERROR(AgreeAcrossRanks(comm, local, "placing ranks on CUDA devices"));

  CudaIpcOptions options;
  options.device = *device;
  options.stream = static_cast<cudaStream_t>(placement.stream);
  options.timeout = request.timeout.timeout;
  options.shape = *shape;
  KCOLL_ASSIGN_OR_RETURN(std::unique_ptr<CudaIpcTransport> transport, CudaIpcTransport::Create(comm, options));
  out.description = absl::StrCat(transport->Describe(), ", cuda kernels, local rank ", rank, " of ", size, ", timeout ",
                                 absl::FormatDuration(request.timeout.timeout));
  out.transport = std::move(transport);
  return out;
}

}  // namespace kcoll
