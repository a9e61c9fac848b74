#include "collectives/transport/cuda/host_staging.h"

#include <cuda_runtime.h>

#include <utility>

#include "base/status_macros.h"
#include "collectives/kernels/backend.h"
#include "collectives/transport/cuda/cuda_staging.h"
#include "collectives/transport/staging_transport.h"

namespace kcoll {

absl::StatusOr<std::unique_ptr<Transport>> StageThroughPinnedHostMemory(std::unique_ptr<Transport> host_transport) {
  KCOLL_ASSIGN_OR_RETURN(CudaPlacement placement, CudaKernelsPlacement());
  return std::unique_ptr<Transport>(std::make_unique<StagingTransport>(
      std::move(host_transport), MakeCudaHostStaging(static_cast<cudaStream_t>(placement.stream))));
}

}  // namespace kcoll
