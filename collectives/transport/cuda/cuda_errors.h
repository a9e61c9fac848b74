// CUDA runtime results as absl::Status: the call that failed, the error's name and its description.
// Needs the CUDA runtime headers (targets that depend on //third_party:cuda_runtime get KCOLL_HAVE_CUDA).
#ifndef KCOLL_COLLECTIVES_TRANSPORT_CUDA_CUDA_ERRORS_H_
#define KCOLL_COLLECTIVES_TRANSPORT_CUDA_CUDA_ERRORS_H_

#include <cuda_runtime.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kcoll {

// OK for cudaSuccess; otherwise "<call> failed: <cudaErrorName>: <description>", with a code that says what kind of
// failure it is (no device or driver: FailedPrecondition, bad argument: InvalidArgument, out of memory:
// ResourceExhausted, anything else: Internal).
absl::Status CudaStatus(cudaError_t error, absl::string_view call);

// The number of CUDA devices this process sees; FailedPrecondition "no CUDA device: ..." when there is none (no GPU,
// no driver), which tests report as their reason to skip.
absl::StatusOr<int> CudaDeviceCount();

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_CUDA_CUDA_ERRORS_H_
