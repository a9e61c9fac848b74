#include "collectives/transport/cuda/cuda_staging.h"

#include "collectives/transport/cuda/cuda_errors.h"

namespace kcoll {
namespace {

class CudaHostStaging final : public HostStaging {
 public:
  explicit CudaHostStaging(cudaStream_t stream) : stream_(stream) {}

  absl::StatusOr<void*> AllocateHost(size_t bytes) override {
    void* host = nullptr;
    if (absl::Status s = CudaStatus(cudaHostAlloc(&host, bytes, cudaHostAllocDefault), "cudaHostAlloc"); !s.ok()) {
      return s;
    }
    return host;
  }

  void FreeHost(void* host) override { cudaFreeHost(host); }

  absl::Status ToHost(void* host, const void* device, size_t bytes) override {
    absl::Status s =
        CudaStatus(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream_), "cudaMemcpyAsync(D2H)");
    if (!s.ok()) return s;
    return CudaStatus(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }

  absl::Status ToDevice(void* device, const void* host, size_t bytes) override {
    return CudaStatus(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream_), "cudaMemcpyAsync(H2D)");
  }

  absl::Status Finish() override { return CudaStatus(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }

 private:
  cudaStream_t stream_;
};

}  // namespace

std::unique_ptr<HostStaging> MakeCudaHostStaging(cudaStream_t stream) {
  return std::make_unique<CudaHostStaging>(stream);
}

}  // namespace kcoll
