#include "collectives/transport/device_path.h"

#include "absl/status/status.h"
#include "base/named_values.h"

namespace kcoll {

namespace {

constexpr NamedValue<DevicePath> kDevicePathNames[] = {{DevicePath::kDirect, "direct"},
                                                       {DevicePath::kStaged, "staged"}};

}  // namespace

absl::string_view DevicePathName(DevicePath path) { return NameIn(kDevicePathNames, path); }

absl::StatusOr<DevicePath> ChooseDevicePath(TransportKind transport, MemoryKind buffers, bool mpi_cuda_aware) {
  switch (transport) {
    case TransportKind::kNccl:
      if (buffers == MemoryKind::kHost) {
        return absl::InvalidArgumentError(
            "transport 'nccl' moves device memory only: host buffers need the cuda execution backend's device "
            "buffers, or transport 'mpi'");
      }
      return DevicePath::kDirect;
    case TransportKind::kMpi:
      if (buffers == MemoryKind::kHost || mpi_cuda_aware) return DevicePath::kDirect;
      return DevicePath::kStaged;
    case TransportKind::kShm:
      if (buffers == MemoryKind::kHost) return DevicePath::kDirect;
      return absl::InvalidArgumentError(
          "transport 'shm' moves host memory only: device buffers need transport 'nccl' or 'mpi'");
  }
  return absl::InvalidArgumentError("transport kind out of range");
}

}  // namespace kcoll
