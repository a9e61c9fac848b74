#include "collectives/kernels/backend_factories.h"
#include "collectives/kernels/kokkos_kernels.h"

namespace kcoll {
namespace kernels_internal {

#if defined(KOKKOS_ENABLE_CUDA)
std::unique_ptr<Kernels> MakeCudaKernels(bool synchronous) {
  return std::make_unique<KokkosKernels<Kokkos::Cuda>>("cuda", Kokkos::Cuda(), synchronous, kNoStreamingStores);
}

bool GetCudaPlacement(int* device, void** stream) {
  const Kokkos::Cuda exec;
  *device = exec.cuda_device();
  *stream = static_cast<void*>(exec.cuda_stream());
  return true;
}
#else
std::unique_ptr<Kernels> MakeCudaKernels(bool) { return nullptr; }
bool GetCudaPlacement(int*, void**) { return false; }
#endif

}  // namespace kernels_internal
}  // namespace kcoll
