#include "mpi_drop_in/host_mirror.h"

namespace kcoll::drop_in {

absl::Status HostMirror::Mirror(const void* base, std::ptrdiff_t first, size_t bytes, bool read, bool write) {
  base_ = static_cast<char*>(const_cast<void*>(base));
  if (base == nullptr || bytes == 0 || !DeviceMemoryPossible() || !IsDeviceMemory(base_ + first)) {
    return absl::OkStatus();
  }
  mirrored_ = true;
  write_ = write;
  device_first_ = base_ + first;
  copy_.resize(bytes);
  base_ = copy_.data() - first;
  return read ? CopyDeviceToHost(copy_.data(), device_first_, bytes) : absl::OkStatus();
}

absl::Status HostMirror::CopyBack() {
  if (!mirrored_ || !write_) return absl::OkStatus();
  write_ = false;
  return CopyHostToDevice(device_first_, copy_.data(), copy_.size());
}

absl::Status ReductionMirror::Mirror(const void* sendbuf, void* recvbuf, size_t in_bytes, size_t out_bytes) {
  in_place_ = sendbuf == recvbuf;
  if (in_place_) return recv.Mirror(recvbuf, 0, in_bytes, /*read=*/true, /*write=*/true);
  absl::Status status = send.Mirror(sendbuf, 0, in_bytes, /*read=*/true, /*write=*/false);
  if (!status.ok()) return status;
  return recv.Mirror(recvbuf, 0, out_bytes, /*read=*/false, /*write=*/true);
}

}  // namespace kcoll::drop_in
