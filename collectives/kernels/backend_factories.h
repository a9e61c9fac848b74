// One factory per backend, each defined in the translation unit that instantiates KokkosKernels for it. A factory
// returns nullptr when its backend is not compiled into the Kokkos install.
#ifndef KCOLL_COLLECTIVES_KERNELS_BACKEND_FACTORIES_H_
#define KCOLL_COLLECTIVES_KERNELS_BACKEND_FACTORIES_H_

#include <cstddef>
#include <memory>

#include "collectives/kernels/kernels.h"

namespace kcoll {
namespace kernels_internal {

// `streaming_min_bytes`: host destinations of at least this many bytes are written with streaming stores.
std::unique_ptr<Kernels> MakeSerialKernels(bool synchronous, size_t streaming_min_bytes);
std::unique_ptr<Kernels> MakeOpenMPKernels(bool synchronous, size_t streaming_min_bytes);
std::unique_ptr<Kernels> MakeCudaKernels(bool synchronous);
// False when Kokkos has no CUDA backend; otherwise fills the device and stream of the instance MakeCudaKernels uses.
bool GetCudaPlacement(int* device, void** stream);

}  // namespace kernels_internal
}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_KERNELS_BACKEND_FACTORIES_H_
