#include <cuda_runtime.h>

#include "bench/data/device_memory.h"
#include "collectives/transport/cuda/cuda_errors.h"

namespace kcoll {
namespace bench {
namespace {

cudaStream_t AsStream(void* stream) { return static_cast<cudaStream_t>(stream); }

}  // namespace

int CurrentDevice() {
  int device = -1;
  return cudaGetDevice(&device) == cudaSuccess ? device : -1;
}

absl::StatusOr<void*> DeviceAlloc(size_t bytes) {
  void* data = nullptr;
  if (absl::Status s = CudaStatus(cudaMalloc(&data, bytes), "cudaMalloc"); !s.ok()) return s;
  return data;
}

void DeviceFree(void* data) {
  if (data != nullptr) cudaFree(data);
}

absl::Status DeviceFill(void* data, int byte, size_t bytes) {
  if (absl::Status s = CudaStatus(cudaMemset(data, byte, bytes), "cudaMemset"); !s.ok()) return s;
  return CudaStatus(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

absl::Status CopyToDevice(void* device_dst, const void* host_src, size_t bytes) {
  return CudaStatus(cudaMemcpy(device_dst, host_src, bytes, cudaMemcpyHostToDevice), "cudaMemcpy (host to device)");
}

absl::Status CopyToHost(void* host_dst, const void* device_src, size_t bytes) {
  return CudaStatus(cudaMemcpy(host_dst, device_src, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy (device to host)");
}

absl::Status DeviceCopyAsync(void* dst, const void* src, size_t bytes, void* stream) {
  return CudaStatus(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, AsStream(stream)),
                    "cudaMemcpyAsync (device to device)");
}

absl::Status SynchronizeStream(void* stream) {
  return CudaStatus(cudaStreamSynchronize(AsStream(stream)), "cudaStreamSynchronize");
}

absl::StatusOr<double> TimeOnStream(void* stream, const std::function<absl::Status()>& enqueue) {
  cudaEvent_t start = nullptr, stop = nullptr;
  absl::Status s = CudaStatus(cudaEventCreate(&start), "cudaEventCreate");
  if (s.ok()) s = CudaStatus(cudaEventCreate(&stop), "cudaEventCreate");
  if (s.ok()) s = CudaStatus(cudaEventRecord(start, AsStream(stream)), "cudaEventRecord");
  if (s.ok()) s = enqueue();
  if (s.ok()) s = CudaStatus(cudaEventRecord(stop, AsStream(stream)), "cudaEventRecord");
  if (s.ok()) s = CudaStatus(cudaEventSynchronize(stop), "cudaEventSynchronize");
  float ms = 0;
  if (s.ok()) s = CudaStatus(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  if (start != nullptr) cudaEventDestroy(start);
  if (stop != nullptr) cudaEventDestroy(stop);
  if (!s.ok()) return s;
  return ms * 1e-3;
}

}  // namespace bench
}  // namespace kcoll
