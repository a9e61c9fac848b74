#include "collectives/execution.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "collectives/status_macros.h"
#include "collectives/transport/mpi/agreement.h"
#include "collectives/transport/device_path.h"
#include "collectives/transport/cuda/gpu_placement.h"
#include "collectives/transport/mpi/mpi_cuda_support.h"
#include "collectives/transport/staging_transport.h"

#if defined(KCOLL_HAVE_CUDA)
#include "collectives/transport/cuda/cuda_errors.h"
#include "collectives/transport/cuda/cuda_staging.h"
#endif
#if defined(KCOLL_HAVE_NCCL)
#include "collectives/transport/nccl/nccl_transport.h"
#include "collectives/env.h"
#endif

namespace kcoll {
namespace {

absl::StatusOr<bool> ResolveMpiCudaAware(const GpuOptions& gpu, std::string* how) {
  if (gpu.mpi_cuda_aware.has_value()) {
    *how = "set by GpuOptions::mpi_cuda_aware";
    return *gpu.mpi_cuda_aware;
  }
  if (const char* env = GetEnv("KCOLL_MPI_CUDA_AWARE")) {
    *how = absl::StrCat("KCOLL_MPI_CUDA_AWARE=", env);
    return ParseFlag(env, "KCOLL_MPI_CUDA_AWARE");
  }
  const MpiCudaSupport support = DetectMpiCudaSupport();
  *how = support.how;
  return support.aware;
}

absl::StatusOr<Execution> MakeMpiExecution(std::unique_ptr<MpiTransport> mpi, ExecBackend backend,
                                           const GpuOptions& gpu) {
  Execution out;
  // MPI reads and writes buffers from the host (or from its own CUDA copies): kernels must have finished first.
  KCOLL_ASSIGN_OR_RETURN(out.kernels, MakeKernels(backend, /*synchronous=*/true));
  bool aware = false;
  std::string how;
  if (out.kernels->memory() == MemoryKind::kDevice) {
    KCOLL_ASSIGN_OR_RETURN(aware, ResolveMpiCudaAware(gpu, &how));
  }
  KCOLL_ASSIGN_OR_RETURN(DevicePath path, ChooseDevicePath(TransportKind::kMpi, out.kernels->memory(), aware));
  const int rank = mpi->rank();
  if (out.kernels->memory() == MemoryKind::kHost) {
    out.description = absl::StrCat("mpi, ", out.kernels->name(), " kernels on host buffers");
    out.transport = std::move(mpi);
    return out;
  }
  if (path == DevicePath::kDirect) {
    mpi->set_device_memory(true);
    out.description = absl::StrCat("mpi, cuda kernels, device buffers to a CUDA-aware MPI (", how, ")");
    out.transport = std::move(mpi);
    return out;
  }
#if defined(KCOLL_HAVE_CUDA)
  KCOLL_ASSIGN_OR_RETURN(CudaPlacement placement, CudaKernelsPlacement());
  out.description = absl::StrCat(
      "mpi, cuda kernels, device buffers staged through pinned host memory (MPI is not "
      "CUDA-aware: ",
      how, ")");
  if (rank == 0) std::fprintf(stderr, "kcoll: %s\n", out.description.c_str());
  out.transport = std::make_unique<StagingTransport>(std::move(mpi),
                                                     MakeCudaHostStaging(static_cast<cudaStream_t>(placement.stream)));
  return out;
#else
  (void)rank;
  return absl::FailedPreconditionError(
      "device buffers over a non-CUDA-aware MPI need pinned staging buffers, but kcoll was built without the CUDA "
      "runtime (set CUDA_PATH to the CUDA toolkit and rebuild)");
#endif
}

#if defined(KCOLL_HAVE_NCCL)
// This rank's position among the ranks of its physical node (emulated nodes do not change which GPUs it sees).
void NodeLocalRank(MPI_Comm comm, int* local_rank, int* local_size) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, local_rank);
  MPI_Comm_size(node, local_size);
  MPI_Comm_free(&node);
}

absl::StatusOr<Execution> MakeNcclExecution(std::unique_ptr<MpiTransport> mpi, const GpuOptions& gpu,
                                            absl::Duration timeout) {
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

  // Per-rank facts (how many devices this rank sees, where Kokkos runs): agreed on before NCCL is touched.
  int local_rank = 0, local_size = 1;
  NodeLocalRank(mpi->comm(), &local_rank, &local_size);
  absl::StatusOr<int> device = CudaDeviceCount();
  if (device.ok()) device = ChooseCudaDevice(local_rank, local_size, *device, devices);
  absl::Status local = device.status();
  if (local.ok()) local = CheckKokkosDevice(*device, placement.device, local_rank);
  KCOLL_RETURN_IF_ERROR(AgreeAcrossRanks(mpi->comm(), local, "placing ranks on CUDA devices"));

  NcclTransportOptions options;
  options.device = *device;
  options.stream = static_cast<cudaStream_t>(placement.stream);
  options.timeout = timeout;
  KCOLL_ASSIGN_OR_RETURN(out.transport, NcclTransport::Create(mpi->comm(), options));
  out.description = absl::StrCat("nccl, cuda kernels, device ", *device, " (local rank ", local_rank, " of ",
                                 local_size, "), timeout ", absl::FormatDuration(timeout));
  return out;
}
#endif

}  // namespace

absl::StatusOr<TransportKind> ChooseTransportKind(std::optional<TransportKind> option) {
  if (option.has_value()) return *option;
  if (const char* env = GetEnv("KCOLL_TRANSPORT")) {
    absl::StatusOr<TransportKind> parsed = ParseTransportKind(env);
    if (!parsed.ok()) return absl::InvalidArgumentError(absl::StrCat("KCOLL_TRANSPORT: ", parsed.status().message()));
    return *parsed;
  }
  return TransportKind::kMpi;
}

absl::StatusOr<Execution> MakeExecution(std::unique_ptr<MpiTransport> mpi, TransportKind kind, ExecBackend backend,
                                        const GpuOptions& gpu, absl::Duration timeout) {
  if (kind == TransportKind::kMpi) return MakeMpiExecution(std::move(mpi), backend, gpu);
  if (backend != ExecBackend::kCuda) {
    return absl::InvalidArgumentError(
        absl::StrCat("transport 'nccl' needs the cuda execution backend (its buffers "
                     "are device memory), not '",
                     ExecBackendName(backend), "'"));
  }
#if defined(KCOLL_HAVE_NCCL)
  return MakeNcclExecution(std::move(mpi), gpu, timeout);
#else
  (void)gpu;
  (void)timeout;
  return absl::FailedPreconditionError(
      "transport 'nccl' was requested but kcoll was built without NCCL: install NCCL (nccl.h and libnccl) with the "
      "CUDA toolkit or set NCCL_HOME, and rebuild");
#endif
}

}  // namespace kcoll
