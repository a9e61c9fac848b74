#include "mpi_drop_in/device_route.h"

#include <memory>

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
  int size = 0;
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  if (count < 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS ||
      PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent(type, &true_lb, &true_extent) != MPI_SUCCESS || size < 0) {
    return std::nullopt;
  }
  if (lb != 0 || true_lb != 0 || extent != size || true_extent != size) return std::nullopt;
  return static_cast<size_t>(count) * static_cast<size_t>(size);
}

}  // namespace kcoll::drop_in
