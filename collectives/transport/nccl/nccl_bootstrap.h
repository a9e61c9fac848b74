// Creating an NCCL communicator over MPI: rank 0 makes the ncclUniqueId and broadcasts it on the MPI communicator,
// every rank binds its CUDA device and joins. Every step ends with the ranks agreeing on its outcome, so a failure
// on one rank is an error on every rank instead of a hang.
//
// The broadcast message carries a magic word, rank 0's NCCL version and the result of ncclGetUniqueId along with
// the id itself, so a rank with a different NCCL library, or a rank 0 that could not create an id, is reported
// rather than producing a communicator that never forms.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_NCCL_NCCL_BOOTSTRAP_H_
#define KCOLL_COLLECTIVES_TRANSPORT_NCCL_NCCL_BOOTSTRAP_H_

#include <mpi.h>
#include <nccl.h>

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "collectives/transport/mpi/agreement.h"
#include "collectives/transport/timeout.h"

namespace kcoll {

// Oldest NCCL library kcoll runs on: non-blocking communicators (ncclCommInitRankConfig) and zero-byte send/recv.
inline constexpr int kMinNcclVersion = 21400;

// magic (4 bytes) + NCCL version (4) + ncclGetUniqueId's result (4) + the id, integers little-endian.
inline constexpr size_t kBootstrapMessageBytes = 12 + sizeof(ncclUniqueId);

std::string EncodeBootstrapMessage(int nccl_version, ncclResult_t result, const ncclUniqueId& id);
// The id, or why it cannot be used: wrong size or magic, rank 0's ncclGetUniqueId failed, or rank 0's NCCL version
// differs from `local_nccl_version`.
absl::StatusOr<ncclUniqueId> DecodeBootstrapMessage(absl::string_view message, int local_nccl_version);

// Polls a non-blocking communicator until the operation in flight is done: OK, its error, or DeadlineExceeded
// after `timeout` (the caller aborts the communicator). `what` names the operation in messages.
absl::Status AwaitNccl(ncclComm_t comm, absl::Duration timeout, absl::string_view what);

struct NcclCommOptions {
  int device = 0;                                // this rank's CUDA device (see ChooseCudaDevice)
  absl::Duration timeout = kDefaultNcclTimeout;  // for joining and for every later wait
  bool nonblocking = false;                      // true: NCCL calls return at once and are polled with the timeout
};

// Collective over `comm`: sets the CUDA device, checks that no two ranks of a node share it, broadcasts rank 0's
// unique id and initialises the NCCL communicator with this rank's MPI rank. The caller owns the result
// (ncclCommDestroy / ncclCommAbort).
absl::StatusOr<ncclComm_t> CreateNcclComm(MPI_Comm comm, const NcclCommOptions& options);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_NCCL_NCCL_BOOTSTRAP_H_
