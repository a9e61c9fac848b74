#include "collectives/kernels/backend_factories.h"
#include "collectives/kernels/kokkos_kernels.h"

namespace kcoll {
namespace kernels_internal {

#if defined(KOKKOS_ENABLE_SERIAL)
std::unique_ptr<Kernels> MakeSerialKernels(bool synchronous, size_t streaming_min_bytes) {
  return std::make_unique<KokkosKernels<Kokkos::Serial>>("serial", Kokkos::Serial(), synchronous, streaming_min_bytes);
}
#else
std::unique_ptr<Kernels> MakeSerialKernels(bool, size_t) { return nullptr; }
#endif

}  // namespace kernels_internal
}  // namespace kcoll
