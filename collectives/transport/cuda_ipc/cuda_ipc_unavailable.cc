#include "collectives/transport/cuda_ipc/cuda_ipc_execution.h"

namespace kcoll {

absl::StatusOr<Execution> MakeCudaIpcExecution(ExecutionRequest request) {
  (void)request;
  return absl::FailedPreconditionError(
      "transport 'cuda_ipc' was requested but kcoll was built without the CUDA runtime: install the CUDA toolkit "
      "(or set CUDA_HOME), and rebuild with a CUDA Kokkos (docs/gpu.md)");
}

}  // namespace kcoll
