// Which network a communicator's transfers go over.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_TRANSPORT_KIND_H_
#define KCOLL_COLLECTIVES_TRANSPORT_TRANSPORT_KIND_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kcoll {

enum class TransportKind {
  kMpi,   // MPI point-to-point: host memory, or device memory through a CUDA-aware MPI or pinned staging buffers
  kNccl,  // NCCL send/recv on the kernels' CUDA stream: device memory
  kShm,   // shared memory between the ranks of one host: host memory
};

absl::string_view TransportKindName(TransportKind kind);  // "mpi", "nccl", "shm"
// Case-insensitive; InvalidArgument names the text and the valid names.
absl::StatusOr<TransportKind> ParseTransportKind(absl::string_view text);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_TRANSPORT_KIND_H_
