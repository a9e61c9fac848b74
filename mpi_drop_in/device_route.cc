#include "mpi_drop_in/device_route.h"

#include <memory>

#include "mpi_drop_in/byte_buffer.h"
#include "mpi_drop_in/comm_registry.h"
#include "mpi_drop_in/device_memory.h"

namespace kcoll::drop_in {

bool DeviceRouteOn() { return DeviceRouteTransport().has_value(); }

Communicator* AgreeOnDeviceRoute(MPI_Comm comm, Communicator* host, bool mine) {
  int qualifies = mine ? 1 : 0, everywhere = 0;
  if (!host->AllReduce(&qualifies, &everywhere, 1, DataType::kInt32, ReduceOp::kMin).ok() || everywhere == 0) {
    return nullptr;  // a failed agreement leaves the host communicator broken: the host route reports it
  }
  return DeviceCommunicatorOf(comm, [comm]() -> absl::StatusOr<std::unique_ptr<Communicator>> {
    if (!DeviceRouteTransport().has_value()) {
      return absl::FailedPreconditionError("KCOLL_MPI_DEVICE names no transport for the device route");
    }
    CommunicatorOptions options;
    options.backend = ExecBackend::kCuda;
    options.transport = *DeviceRouteTransport();
    return Communicator::Create(comm, options);
  });
}

bool BuffersOnDevice(std::initializer_list<const void*> buffers) {
  if (!DeviceMemoryPossible()) return false;
  bool any = false;
  for (const void* b : buffers) {
    if (b == nullptr) continue;
    if (!IsDeviceMemory(b)) return false;
    any = true;
  }
  return any;
}

std::optional<size_t> ContiguousBytes(long long count, MPI_Datatype type) {
  const std::optional<DatatypeLayout> layout = LayoutOf(type);
  if (count < 0 || !layout.has_value() || !layout->contiguous()) return std::nullopt;
  return static_cast<size_t>(count) * static_cast<size_t>(layout->size);
}

}  // namespace kcoll::drop_in
