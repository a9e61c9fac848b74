#include "collectives/transport/nccl/nccl_execution.h"

namespace kcoll {

absl::StatusOr<Execution> MakeNcclExecution(ExecutionRequest request) {
  (void)request;
  return absl::FailedPreconditionError(
      "transport 'nccl' was requested but kcoll was built without NCCL: install NCCL (nccl.h and libnccl) with the "
      "CUDA toolkit or set NCCL_HOME, and rebuild");
}

}  // namespace kcoll
