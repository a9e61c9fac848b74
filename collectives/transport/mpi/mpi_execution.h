// The MPI transport's factory: MPI point-to-point with host kernels, or with CUDA kernels either handing device
// buffers to a CUDA-aware MPI or staging them through pinned host memory. Kernels are fenced after every launch:
// MPI reads and writes buffers from the host.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_MPI_MPI_EXECUTION_H_
#define KCOLL_COLLECTIVES_TRANSPORT_MPI_MPI_EXECUTION_H_

#include "absl/status/statusor.h"
#include "collectives/transport/execution.h"

namespace kcoll {

absl::StatusOr<Execution> MakeMpiExecution(ExecutionRequest request);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_MPI_MPI_EXECUTION_H_
