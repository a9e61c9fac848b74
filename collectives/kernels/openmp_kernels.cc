#include "collectives/kernels/backend_factories.h"
#include "collectives/kernels/kokkos_kernels.h"

namespace kcoll {
namespace kernels_internal {

#if defined(KOKKOS_ENABLE_OPENMP)
std::unique_ptr<Kernels> MakeOpenMPKernels(bool synchronous, size_t streaming_min_bytes) {
  return std::make_unique<KokkosKernels<Kokkos::OpenMP>>("openmp", Kokkos::OpenMP(), synchronous, streaming_min_bytes);
}
#else
std::unique_ptr<Kernels> MakeOpenMPKernels(bool, size_t) { return nullptr; }
#endif

}  // namespace kernels_internal
}  // namespace kcoll
