#include "collectives/kernels/backend_factories.h"
#include "collectives/kernels/kokkos_kernels.h"

namespace kcoll {
namespace kernels_internal {

#if defined(KOKKOS_ENABLE_OPENMP)
std::unique_ptr<Kernels> MakeOpenMPKernels(bool synchronous) {
  return std::make_unique<KokkosKernels<Kokkos::OpenMP>>("openmp", Kokkos::OpenMP(), synchronous);
}
#else
std::unique_ptr<Kernels> MakeOpenMPKernels(bool) { return nullptr; }
#endif

}  // namespace kernels_internal
}  // namespace kcoll
