// Ranks agreeing on the outcome of a local step, so that a failure on one rank becomes an error on every rank
// instead of a hang in the next collective call.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_MPI_AGREEMENT_H_
#define KCOLL_COLLECTIVES_TRANSPORT_MPI_AGREEMENT_H_

#include <mpi.h>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace kcoll {

// Collective over `comm`: OK when `local` is OK on every rank. Otherwise this rank's own error (annotated with the
// failing ranks) if it has one, else FailedPrecondition naming `what` and the ranks that failed.
absl::Status AgreeAcrossRanks(MPI_Comm comm, const absl::Status& local, absl::string_view what);

// The call an agreement belongs to, as its errors name it.
struct CallToAgreeOn {
  absl::string_view collective;                       // "gather", "Split"
  absl::string_view algorithm;                        // "linear"; for a call without algorithms, what it does
  absl::Duration timeout = absl::InfiniteDuration();  // how long a wait may go without a transfer completing
  absl::string_view timeout_source;                   // "KCOLL_TIMEOUT"
};

// What the ranks of a call whose arguments some rank sees alone do before any of them acts (a rooted collective
// before data moves: a root's buffers are seen by the root alone; Split): each says whether it accepted its own
// arguments, over a binomial tree rooted at rank 0 whatever the call's root (in,
// then out: 2 log2 P messages of 4 bytes deep; a rank whose root differs still meets the others). OK when every rank
// accepted; else every rank returns InvalidArgument naming the lowest rejecting rank and that rank's message (a
// rejecting rank returns its own `local`), and no rank has acted. Collective over `comm` (point-to-point on a tag
// of its own). A wait in which nothing arrives for the timeout is DeadlineExceeded naming the ranks it waited for,
// worded as the transports word theirs.
absl::Status AgreeOnAcceptanceOverMpi(MPI_Comm comm, const CallToAgreeOn& call, const absl::Status& local);

// The error path of an agreement over MPI, once every rank knows that rank `first` rejected its arguments of `call`:
// its message travels to every rank (MPI_Ibcast on `comm`, its first kRejectionMessageBytes). Returns `local` where
// it is an error, else RejectedOnAnotherRank; DeadlineExceeded when the message did not arrive within `timeout`.
absl::Status RelayRejection(MPI_Comm comm, absl::string_view call, int first, const absl::Status& local,
                            absl::Duration timeout);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_MPI_AGREEMENT_H_
