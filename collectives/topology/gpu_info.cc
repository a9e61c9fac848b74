#include "collectives/topology/gpu_info.h"

#include "absl/strings/str_cat.h"

#if defined(KCOLL_HAVE_CUDA_RUNTIME)
#include <cuda_runtime_api.h>
#endif

namespace kcoll {

#if defined(KCOLL_HAVE_CUDA_RUNTIME)

bool CompiledWithCuda() { return true; }

absl::StatusOr<std::optional<GpuInfo>> CurrentCudaDevice() {
  int device = -1;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) {
    return absl::FailedPreconditionError(absl::StrCat("cudaGetDevice: ", cudaGetErrorString(err)));
  }
  GpuInfo info;
  info.device = device;
  char bus_id[32] = {};
  err = cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), device);
  if (err != cudaSuccess) {
    return absl::FailedPreconditionError(absl::StrCat("cudaDeviceGetPCIBusId: ", cudaGetErrorString(err)));
  }
  info.pci_bus_id = bus_id;
  cudaDeviceProp prop;
  err = cudaGetDeviceProperties(&prop, device);
  if (err != cudaSuccess) {
    return absl::FailedPreconditionError(absl::StrCat("cudaGetDeviceProperties: ", cudaGetErrorString(err)));
  }
  info.name = prop.name;
  return std::optional<GpuInfo>(std::move(info));
}

#else

bool CompiledWithCuda() { return false; }

absl::StatusOr<std::optional<GpuInfo>> CurrentCudaDevice() { return std::optional<GpuInfo>(); }

#endif

}  // namespace kcoll
