#include "collectives/transport/cuda_ipc/cuda_ipc_execution.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/env.h"
#include "base/status_macros.h"
#include "collectives/transport/cuda/cuda_errors.h"
#include "collectives/transport/cuda/gpu_placement.h"
#include "collectives/transport/cuda_ipc/cuda_ipc_transport.h"
#include "collectives/transport/mpi/agreement.h"
#include "collectives/transport/mpi/host_ranks.h"
#include "collectives/transport/mpi/mpi_execution.h"
#include "collectives/transport/nccl/nccl_execution.h"
#include "collectives/transport/routed_transport.h"

namespace kcoll {
namespace {

// The ranks of this rank's node, freed when it goes (the transport keeps a duplicate).
struct NodeComm {
  NodeComm(MPI_Comm comm, int node, int rank) { MPI_Comm_split(comm, node, rank, &this->comm); }
  ~NodeComm() { MPI_Comm_free(&comm); }
  NodeComm(const NodeComm&) = delete;
  NodeComm& operator=(const NodeComm&) = delete;
  MPI_Comm comm = MPI_COMM_NULL;
};

}  // namespace

absl::StatusOr<Execution> MakeCudaIpcExecution(ExecutionRequest request) {
  MPI_Comm comm = request.mpi->comm();
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const std::vector<int> node_of = request.node_of.empty() ? std::vector<int>(size, 0) : request.node_of;
  // This rank's node: CUDA IPC with these ranks, the others through the transport across.
  std::vector<int> node_ranks, local_index(size, -1);
  for (int r = 0; r < size; ++r) {
    if (node_of[r] != node_of[rank]) continue;
    local_index[r] = static_cast<int>(node_ranks.size());
    node_ranks.push_back(r);
  }
  const bool one_node = static_cast<int>(node_ranks.size()) == size;
  NodeComm node(comm, node_of[rank], rank);
  // Settings every rank reads alike, and where each rank is: agreed on before any GPU memory is touched.
  absl::StatusOr<cuda_ipc::ChannelShape> shape = ChannelShapeFromEnv();
  absl::StatusOr<TransportKind> across = CrossNodeTransportFromEnv();
  std::vector<int> devices = request.gpu.cuda_devices;
  absl::Status local = shape.status();
  if (local.ok()) local = across.status();
  if (local.ok() && devices.empty()) {
    if (const char* env = GetEnv("KCOLL_CUDA_DEVICE")) {
      absl::StatusOr<std::vector<int>> parsed = ParseCudaDeviceList(env, "KCOLL_CUDA_DEVICE");
      if (parsed.ok()) devices = *parsed;
      local = parsed.status();
    }
  }
  if (local.ok()) {
    local = CheckNodeOnOneHost(node.comm, "cuda_ipc",
                               "CUDA IPC moves memory within a host only: emulate nodes of at most one host each, or "
                               "use KCOLL_TRANSPORT=nccl or mpi");
  }
  KCOLL_RETURN_IF_ERROR(AgreeAcrossRanks(comm, local, "checking the CUDA IPC transport's settings and nodes"));

  Execution out;
  KCOLL_ASSIGN_OR_RETURN(out.kernels, MakeKernels(ExecBackend::kCuda, /*synchronous=*/false));
  KCOLL_ASSIGN_OR_RETURN(CudaPlacement placement, CudaKernelsPlacement());
  // The GPU follows the rank's place on its host (emulated nodes do not change which GPUs it sees).
  const HostRanks host = RanksOnThisHost(comm);
  absl::StatusOr<int> device = CudaDeviceCount();
  if (device.ok()) device = ChooseCudaDevice(host.rank, host.size, *device, devices);
  local = device.status();
  if (local.ok()) local = CheckKokkosDevice(*device, placement.device, host.rank);
  KCOLL_RETURN_IF_ERROR(AgreeAcrossRanks(comm, local, "placing ranks on CUDA devices"));

  CudaIpcOptions options;
  options.device = *device;
  options.stream = static_cast<cudaStream_t>(placement.stream);
  options.timeout = request.timeout.timeout;
  options.shape = *shape;
  options.rank_names = node_ranks;
  absl::StatusOr<std::unique_ptr<CudaIpcTransport>> ipc = CudaIpcTransport::Create(node.comm, options);
  KCOLL_RETURN_IF_ERROR(AgreeAcrossRanks(comm, ipc.status(), "setting up CUDA IPC on every node"));
  const std::string ipc_description = (*ipc)->Describe();
  const std::string place = absl::StrCat("cuda kernels, local rank ", host.rank, " of ", host.size, ", timeout ",
                                         absl::FormatDuration(request.timeout.timeout));
  if (one_node) {
    out.description = absl::StrCat(ipc_description, ", ", place);
    out.transport = *std::move(ipc);
    return out;
  }
  // Several nodes: the transport across is made by its own factory over the whole communicator (its kernels are
  // not used: these share the stream with both parts).
  absl::StatusOr<Execution> remote =
      *across == TransportKind::kNccl ? MakeNcclExecution(std::move(request)) : MakeMpiExecution(std::move(request));
  if (!remote.ok()) return remote.status();
  out.description = absl::StrCat(ipc_description, " on this node; between nodes: ", remote->description, "; ", place);
  out.transport =
      std::make_unique<RoutedTransport>(*std::move(ipc), std::move(local_index), std::move(remote->transport));
  return out;
}

}  // namespace kcoll
