#include "collectives/transport/mpi/mpi_execution.h"

#include <cstdio>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/env.h"
#include "base/status_macros.h"
#include "collectives/transport/cuda/host_staging.h"
#include "collectives/transport/device_path.h"
#include "collectives/transport/mpi/mpi_cuda_support.h"

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

}  // namespace

absl::StatusOr<Execution> MakeMpiExecution(ExecutionRequest request) {
  std::unique_ptr<MpiTransport> mpi = std::move(request.mpi);
  mpi->set_timeout(request.timeout.timeout, request.timeout.source);
  Execution out;
  KCOLL_ASSIGN_OR_RETURN(out.kernels, MakeKernels(request.backend, /*synchronous=*/true));
  bool aware = false;
  std::string how;
  if (out.kernels->memory() == MemoryKind::kDevice) {
    KCOLL_ASSIGN_OR_RETURN(aware, ResolveMpiCudaAware(request.gpu, &how));
  }
  KCOLL_ASSIGN_OR_RETURN(DevicePath path, ChooseDevicePath(TransportKind::kMpi, out.kernels->memory(), aware));
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
  const int rank = mpi->rank();
  KCOLL_ASSIGN_OR_RETURN(out.transport, StageThroughPinnedHostMemory(std::move(mpi)));
  out.description = absl::StrCat(
      "mpi, cuda kernels, device buffers staged through pinned host memory (MPI is not CUDA-aware: ", how, ")");
  if (rank == 0) std::fprintf(stderr, "kcoll: %s\n", out.description.c_str());
  return out;
}

}  // namespace kcoll
