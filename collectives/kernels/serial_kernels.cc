#include "collectives/kernels/backend_factories.h"
#include "collectives/kernels/kokkos_kernels.h"

namespace kcoll {
namespace kernels_internal {

#if defined(KOKKOS_ENABLE_SERIAL)
std::unique_ptr<Kernels> MakeSerialKernels(bool synchronous) {
  return std::make_unique<KokkosKernels<Kokkos::Serial>>("serial", Kokkos::Serial(), synchronous);
}
#else
std::unique_ptr<Kernels> MakeSerialKernels(bool) { return nullptr; }
#endif

}  // namespace kernels_internal
}  // namespace kcoll
