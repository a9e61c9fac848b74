// Device buffers over a transport that reaches host memory only: each transfer staged through pinned host buffers,
// with copies on the stream of Kokkos' Cuda instance. A build without the CUDA runtime has the same function,
// returning FailedPrecondition (host_staging_unavailable.cc); the BUILD file picks which.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_CUDA_HOST_STAGING_H_
#define KCOLL_COLLECTIVES_TRANSPORT_CUDA_HOST_STAGING_H_

#include <memory>

#include "absl/status/statusor.h"
#include "collectives/transport/transport.h"

namespace kcoll {

absl::StatusOr<std::unique_ptr<Transport>> StageThroughPinnedHostMemory(std::unique_ptr<Transport> host_transport);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_CUDA_HOST_STAGING_H_
