#include "collectives/transport/cuda/host_staging.h"

namespace kcoll {

absl::StatusOr<std::unique_ptr<Transport>> StageThroughPinnedHostMemory(std::unique_ptr<Transport> host_transport) {
  (void)host_transport;
  return absl::FailedPreconditionError(
      "device buffers over a non-CUDA-aware MPI need pinned staging buffers, but kcoll was built without the CUDA "
      "runtime (set CUDA_PATH to the CUDA toolkit and rebuild)");
}

}  // namespace kcoll
