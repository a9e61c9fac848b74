// The NCCL transport's factory: NCCL send/recv on the stream of Kokkos' Cuda instance, kernels not fenced
// (transfers and kernels are ordered by the stream; a collective synchronises once, at its end). A build without
// NCCL has the same function, returning FailedPrecondition (nccl_unavailable.cc); the BUILD file picks which.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_NCCL_NCCL_EXECUTION_H_
#define KCOLL_COLLECTIVES_TRANSPORT_NCCL_NCCL_EXECUTION_H_

#include "absl/status/statusor.h"
#include "collectives/transport/execution.h"

namespace kcoll {

absl::StatusOr<Execution> MakeNcclExecution(ExecutionRequest request);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_NCCL_NCCL_EXECUTION_H_
