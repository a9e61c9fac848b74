#include "collectives/transport/cuda_ipc/device_parts.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/byte_size.h"
#include "collectives/transport/cuda/cuda_errors.h"
#include "collectives/transport/mpi/agreement.h"

namespace kcoll {
namespace {

class DeviceParts final : public MappedParts {
 public:
  explicit DeviceParts(int size) : parts_(static_cast<size_t>(size), nullptr), opened_(static_cast<size_t>(size)) {}
  ~DeviceParts() override {
    for (void* p : opened_) {
      if (p != nullptr) cudaIpcCloseMemHandle(p);
    }
    if (own_ != nullptr) cudaFree(own_);
  }
  unsigned char* part(int local_rank) const override { return parts_[local_rank]; }

  // This rank's part: allocated, zero-filled (finished before any peer may read it) and exported.
  absl::Status AllocateOwn(int rank, size_t bytes, cudaIpcMemHandle_t* handle) {
    absl::Status s = CudaStatus(cudaMalloc(&own_, bytes), absl::StrCat("cudaMalloc of ", FormatByteSize(bytes),
                                                                       " bytes of registered device memory"));
    if (s.ok()) s = CudaStatus(cudaMemset(own_, 0, bytes), "cudaMemset (registered device memory)");
    if (s.ok()) s = CudaStatus(cudaDeviceSynchronize(), "cudaDeviceSynchronize (registered device memory)");
    if (s.ok()) s = CudaStatus(cudaIpcGetMemHandle(handle, own_), "cudaIpcGetMemHandle (registered device memory)");
    if (s.ok()) parts_[rank] = static_cast<unsigned char*>(own_);
    return s;
  }

  absl::Status OpenPeer(int peer, const cudaIpcMemHandle_t& handle) {
    absl::Status s =
        CudaStatus(cudaIpcOpenMemHandle(&opened_[peer], handle, cudaIpcMemLazyEnablePeerAccess),
                   absl::StrCat("cudaIpcOpenMemHandle (the registered device memory of rank ", peer, " of the node)"));
    if (s.ok()) parts_[peer] = static_cast<unsigned char*>(opened_[peer]);
    return s;
  }

 private:
  std::vector<unsigned char*> parts_;
  std::vector<void*> opened_;
  void* own_ = nullptr;
};

}  // namespace

absl::StatusOr<std::unique_ptr<MappedParts>> MakeDeviceParts(MPI_Comm comm, const std::vector<uint64_t>& sizes) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  auto parts = std::make_unique<DeviceParts>(size);
  // cudaMalloc aligns to 256 bytes; a part of 0 bytes still gets one byte, so every rank exports a handle.
  cudaIpcMemHandle_t handle{};
  absl::Status local = parts->AllocateOwn(rank, std::max<uint64_t>(sizes[rank], 1), &handle);
  if (absl::Status s = AgreeAcrossRanks(comm, local, "allocating registered device memory"); !s.ok()) return s;
  std::vector<cudaIpcMemHandle_t> handles(static_cast<size_t>(size));
  MPI_Allgather(&handle, sizeof(handle), MPI_BYTE, handles.data(), sizeof(handle), MPI_BYTE, comm);
  for (int p = 0; p < size && local.ok(); ++p) {
    if (p != rank) local = parts->OpenPeer(p, handles[p]);
  }
  if (absl::Status s = AgreeAcrossRanks(comm, local, "opening the peers' registered device memory"); !s.ok()) return s;
  return std::unique_ptr<MappedParts>(std::move(parts));
}

}  // namespace kcoll
