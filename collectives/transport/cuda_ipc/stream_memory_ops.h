// Waits and writes of 32-bit counters on a CUDA stream (the driver's cuStreamWaitValue32 and cuStreamWriteValue32),
// reached through the runtime's driver entry points so that nothing links against the driver library itself. A wait
// holds back everything enqueued after it on the stream until the counter reaches the value (cyclically); a write
// stores the value once everything enqueued before it has run, with a memory barrier, so a peer that waits for it
// also sees the data copied before it. The counters live in host memory that every GPU of the node maps.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_CUDA_IPC_STREAM_MEMORY_OPS_H_
#define KCOLL_COLLECTIVES_TRANSPORT_CUDA_IPC_STREAM_MEMORY_OPS_H_

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace kcoll {
namespace cuda_ipc {

class StreamMemoryOps {
 public:
  // FailedPrecondition naming the symbol when the driver does not provide one.
  static absl::StatusOr<StreamMemoryOps> Load();

  // `counter` is a device address of host-mapped memory (cudaHostGetDevicePointer).
  absl::Status Wait(cudaStream_t stream, void* counter, uint32_t value) const;
  absl::Status Write(cudaStream_t stream, void* counter, uint32_t value) const;

 private:
  using WaitFn = CUresult (*)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
  using WriteFn = CUresult (*)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
  using ErrorNameFn = CUresult (*)(CUresult, const char**);
  absl::Status Check(CUresult result, const char* call) const;

  WaitFn wait_ = nullptr;
  WriteFn write_ = nullptr;
  ErrorNameFn error_name_ = nullptr;
};

}  // namespace cuda_ipc
}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_CUDA_IPC_STREAM_MEMORY_OPS_H_
