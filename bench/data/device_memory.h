// Device memory and GPU-side timing for the benchmarks' --exec cuda modes, over the CUDA runtime. In a build without
// the CUDA runtime every function returns FailedPrecondition saying so. Streams are cudaStream_t passed as void*, so
// that callers need no CUDA headers.
#ifndef KCOLL_BENCH_DATA_DEVICE_MEMORY_H_
#define KCOLL_BENCH_DATA_DEVICE_MEMORY_H_

#include <cstddef>
#include <functional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace kcoll {
namespace bench {

absl::StatusOr<void*> DeviceAlloc(size_t bytes);
// The CUDA device this process runs on (cudaGetDevice), or -1 without CUDA.
int CurrentDevice();
void DeviceFree(void* data);
// Sets `bytes` bytes to `byte` and waits for it.
absl::Status DeviceFill(void* data, int byte, size_t bytes);
// Blocking copies between host and device memory.
absl::Status CopyToDevice(void* device_dst, const void* host_src, size_t bytes);
absl::Status CopyToHost(void* host_dst, const void* device_src, size_t bytes);
// A device-to-device cudaMemcpyAsync on `stream`: the copy baseline the device kernels are judged against.
absl::Status DeviceCopyAsync(void* dst, const void* src, size_t bytes, void* stream);
absl::Status SynchronizeStream(void* stream);
// The GPU time, in seconds, of the work `enqueue` puts on `stream`: CUDA events recorded before and after it, then
// waited for. An error from `enqueue` or from CUDA is returned instead.
absl::StatusOr<double> TimeOnStream(void* stream, const std::function<absl::Status()>& enqueue);

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_DATA_DEVICE_MEMORY_H_
