// HostStaging with CUDA: pinned buffers from cudaHostAlloc, copies with cudaMemcpyAsync on the kernels' stream (so a
// send's copy follows the kernel that produced the data) and a stream synchronisation where the host needs the
// bytes. Needs the CUDA runtime (KCOLL_HAVE_CUDA).
#ifndef KCOLL_COLLECTIVES_TRANSPORT_CUDA_CUDA_STAGING_H_
#define KCOLL_COLLECTIVES_TRANSPORT_CUDA_CUDA_STAGING_H_

#include <cuda_runtime.h>

#include <memory>

#include "collectives/transport/staging_transport.h"

namespace kcoll {

std::unique_ptr<HostStaging> MakeCudaHostStaging(cudaStream_t stream);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_CUDA_CUDA_STAGING_H_
