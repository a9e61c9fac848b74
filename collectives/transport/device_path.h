// How a communicator's buffers reach its transport: handed over directly, or staged through pinned host memory.
// A pure function of the memory the transport moves (base/transport_kind.h), where the buffers live and whether the
// MPI library reads device memory, so the decision is tested on every machine, GPU or not.
//
//   transport moves            buffers  CUDA-aware MPI  path
//   host, staging device (mpi) host     any             direct
//   host, staging device (mpi) device   yes             direct   (MPI reads device memory itself)
//   host, staging device (mpi) device   no              staged   (device -> pinned host -> MPI -> pinned host ->
//   device) device (nccl)              device   any             direct device (nccl)              host     any error
//   host (shm)                 host     any             direct
//   host (shm)                 device   any             error
#ifndef KCOLL_COLLECTIVES_TRANSPORT_DEVICE_PATH_H_
#define KCOLL_COLLECTIVES_TRANSPORT_DEVICE_PATH_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/transport_kind.h"
#include "collectives/kernels/kernels.h"

namespace kcoll {

enum class DevicePath {
  kDirect,  // the transport is given the buffers themselves
  kStaged,  // every transfer is copied through a pinned host buffer
};

absl::string_view DevicePathName(DevicePath path);  // "direct", "staged"

// InvalidArgument when the transport cannot move buffers of that kind at all.
absl::StatusOr<DevicePath> ChooseDevicePath(TransportKind transport, MemoryKind buffers, bool mpi_cuda_aware);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_DEVICE_PATH_H_
