#include "collectives/kernels/backend_factories.h"
#include "collectives/kernels/kokkos_kernels.h"

namespace kcoll {
namespace kernels_internal {

#if defined(KOKKOS_ENABLE_CUDA)
std::unique_ptr<Kernels> MakeCudaKernels(bool synchronous) {
  return std::make_unique<KokkosKernels<Kokkos::Cuda>>("cuda", Kokkos::Cuda(), synchronous);
}
#else
std::unique_ptr<Kernels> MakeCudaKernels(bool) { return nullptr; }
#endif

}  // namespace kernels_internal
}  // namespace kcoll
