// Ranks agreeing on the outcome of a local step, so that a failure on one rank becomes an error on every rank
// instead of a hang in the next collective call.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_MPI_AGREEMENT_H_
#define KCOLL_COLLECTIVES_TRANSPORT_MPI_AGREEMENT_H_

#include <mpi.h>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace kcoll {

// Collective over `comm`: OK when `local` is OK on every rank. Otherwise this rank's own error (annotated with the
// failing ranks) if it has one, else FailedPrecondition naming `what` and the ranks that failed.
absl::Status AgreeAcrossRanks(MPI_Comm comm, const absl::Status& local, absl::string_view what);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_MPI_AGREEMENT_H_
