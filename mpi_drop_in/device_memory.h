// Device memory in an application's MPI calls. An MPI that is not CUDA-aware (Debian's Open MPI, MPICH built without
// CUDA) reads a device pointer as host memory and crashes; the library instead recognises CUDA device memory and
// copies it through host memory on the rank that passed it (host_mirror.h), so every rank takes the same route
// whichever memory its buffers are in. CUDA's driver is found in the process (the libcuda.so.1 the application's CUDA
// runtime loaded), never linked: a process without CUDA pays one check per call, a glance at the count of loaded
// objects, and a process that never loads CUDA has no device memory to find.
//
// KCOLL_MPI_DEVICE (read once): `stage` (the default) finds and copies device buffers; `off` takes every buffer as
// host memory, without the check.
#ifndef KCOLL_MPI_DROP_IN_DEVICE_MEMORY_H_
#define KCOLL_MPI_DROP_IN_DEVICE_MEMORY_H_

#include <cstddef>

#include "absl/status/status.h"

namespace kcoll::drop_in {

// OK, or KCOLL_MPI_DEVICE's value named as invalid: every call the library takes then fails with this error.
const absl::Status& DeviceModeStatus();

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
