// NCCL results as absl::Status: the call that failed, NCCL's name and description of the result, and NCCL's own
// last-error text when it has one. Compiled only when NCCL is present (KCOLL_HAVE_NCCL).
#ifndef KCOLL_COLLECTIVES_TRANSPORT_NCCL_NCCL_ERRORS_H_
#define KCOLL_COLLECTIVES_TRANSPORT_NCCL_NCCL_ERRORS_H_

#include <nccl.h>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace kcoll {

// "ncclSuccess", "ncclInvalidArgument", ...
absl::string_view NcclResultName(ncclResult_t result);

// OK for ncclSuccess; otherwise "<call> failed: <ncclResultName>: <description>[ (<last error>)]". Codes:
// invalid argument -> InvalidArgument, invalid usage -> FailedPrecondition, system/remote errors (a peer or the
// network failed) -> Unavailable, CUDA and internal errors -> Internal, in progress -> Unavailable (the operation
// has not finished; callers that poll never translate it). `comm` (may be null) supplies ncclGetLastError.
absl::Status NcclStatus(ncclResult_t result, absl::string_view call, ncclComm_t comm = nullptr);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_NCCL_NCCL_ERRORS_H_
