// Device memory in an application's MPI calls. An MPI that is not CUDA-aware (Debian's Open MPI, MPICH built without
// CUDA) reads a device pointer as host memory and crashes; the library instead recognises CUDA device memory and
// copies it through host memory on the rank that passed it (host_mirror.h), so every rank takes the same route
// whichever memory its buffers are in. CUDA's driver is found in the process (the libcuda.so.1 the application's CUDA
// runtime loaded), never linked: a process without CUDA pays one check per call, a glance at the count of loaded
// objects, and a process that never loads CUDA has no device memory to find.
//
// KCOLL_MPI_DEVICE (read once, the same on every rank): `stage` (the default) finds and copies device buffers; `off`
// takes every buffer as host memory, without the check; a transport that moves device memory (`nccl`, `cuda_ipc`,
// `mpi`) also takes the device route where every rank's buffers allow it (device_route.h).
#ifndef KCOLL_MPI_DROP_IN_DEVICE_MEMORY_H_
#define KCOLL_MPI_DROP_IN_DEVICE_MEMORY_H_

#include <cstddef>
#include <optional>

#include "absl/status/status.h"
#include "base/transport_kind.h"

namespace kcoll::drop_in {

// OK, or why KCOLL_MPI_DEVICE's value cannot be honoured: every call then goes to MPI, the message printed
// at each communicator's first call.
const absl::Status& DeviceModeStatus();

// The device route's transport when KCOLL_MPI_DEVICE names one, else nullopt.
const std::optional<TransportKind>& DeviceRouteTransport();

// Whether a buffer of this call may be device memory: CUDA's driver is in the process (once found, it stays) and
// KCOLL_MPI_DEVICE is not `off`. False also when KCOLL_MPI_DEVICE is invalid (DeviceModeStatus says so).
bool DeviceMemoryPossible();

// Whether `p` points into device memory that host code cannot read: memory of a CUDA device that is not managed
// (managed memory and host memory registered with CUDA are host-readable). Null is not. Call only when
// DeviceMemoryPossible().
bool IsDeviceMemory(const void* p);

// Synchronous copies between device and host memory (the device's work on the buffer ordered before, as MPI requires
// of a buffer handed to a call), in the pointer's context when the thread has none current. The driver's error name
// in the status when one fails.
absl::Status CopyDeviceToHost(void* host, const void* device, size_t bytes);
absl::Status CopyHostToDevice(void* device, const void* host, size_t bytes);

}  // namespace kcoll::drop_in

#endif  // KCOLL_MPI_DROP_IN_DEVICE_MEMORY_H_
