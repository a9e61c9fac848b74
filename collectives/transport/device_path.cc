#include "collectives/transport/device_path.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/named_values.h"

namespace kcoll {

namespace {

constexpr NamedValue<DevicePath> kDevicePathNames[] = {{DevicePath::kDirect, "direct"},
                                                       {DevicePath::kStaged, "staged"}};

// "'a' or 'b'": the transports that take buffers of `memory`.
std::string TransportsFor(MemoryKind memory) {
  std::string out;
  for (TransportKind kind : {
#define KCOLL_TRANSPORT_KIND(enumerator, name, moves, node_memory, factory) TransportKind::k##enumerator,
           KCOLL_TRANSPORTS(KCOLL_TRANSPORT_KIND)
#undef KCOLL_TRANSPORT_KIND
       }) {
    const TransportMemory moves = MemoryMovedBy(kind);
    const bool takes = moves == TransportMemory::kHostStagingDevice ||
                       (moves == TransportMemory::kHost) == (memory == MemoryKind::kHost);
    if (takes) absl::StrAppend(&out, out.empty() ? "" : " or ", "'", TransportKindName(kind), "'");
  }
  return out;
}

}  // namespace

absl::string_view DevicePathName(DevicePath path) { return NameIn(kDevicePathNames, path); }

absl::StatusOr<DevicePath> ChooseDevicePath(TransportKind transport, MemoryKind buffers, bool mpi_cuda_aware) {
  switch (MemoryMovedBy(transport)) {
    case TransportMemory::kDevice:
      if (buffers == MemoryKind::kDevice) return DevicePath::kDirect;
      return absl::InvalidArgumentError(absl::StrCat(
          "transport '", TransportKindName(transport),
          "' moves device memory only: host buffers need the cuda execution backend's device buffers, or transport ",
          TransportsFor(MemoryKind::kHost)));
    case TransportMemory::kHost:
      if (buffers == MemoryKind::kHost) return DevicePath::kDirect;
      return absl::InvalidArgumentError(absl::StrCat("transport '", TransportKindName(transport),
                                                     "' moves host memory only: device buffers need transport ",
                                                     TransportsFor(MemoryKind::kDevice)));
    case TransportMemory::kHostStagingDevice:
      if (buffers == MemoryKind::kHost || mpi_cuda_aware) return DevicePath::kDirect;
      return DevicePath::kStaged;
  }
  return absl::InvalidArgumentError("transport kind out of range");
}

}  // namespace kcoll
