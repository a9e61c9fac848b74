// Device memory for tests that run on a GPU: a cudaMalloc'd buffer filled from and read back into host bytes.
#ifndef KCOLL_TESTS_DEVICE_BUFFER_H_
#define KCOLL_TESTS_DEVICE_BUFFER_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "absl/status/status.h"
#include "collectives/transport/cuda/cuda_errors.h"

namespace kcoll {
namespace testing {

class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
    // At least one byte, so every buffer has a distinct non-null address.
    status_ = CudaStatus(cudaMalloc(&data_, bytes > 0 ? bytes : 1), "cudaMalloc");
  }
  ~DeviceBuffer() {
    if (data_ != nullptr) cudaFree(data_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  const absl::Status& status() const { return status_; }
  void* data() { return data_; }
  size_t bytes() const { return bytes_; }

  absl::Status Upload(const std::vector<char>& host) {
    if (host.empty()) return absl::OkStatus();
    return CudaStatus(cudaMemcpy(data_, host.data(), host.size(), cudaMemcpyHostToDevice), "cudaMemcpy(H2D)");
  }
  absl::Status Fill(unsigned char byte) {
    return CudaStatus(cudaMemset(data_, byte, bytes_ > 0 ? bytes_ : 1), "cudaMemset");
  }
  std::vector<char> Download(size_t bytes) const {
    std::vector<char> host(bytes);
    if (bytes > 0) cudaMemcpy(host.data(), data_, bytes, cudaMemcpyDeviceToHost);
    return host;
  }

 private:
  void* data_ = nullptr;
  size_t bytes_;
  absl::Status status_;
};

}  // namespace testing
}  // namespace kcoll

#endif  // KCOLL_TESTS_DEVICE_BUFFER_H_
