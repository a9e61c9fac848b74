// The agreement of a call whose arguments some rank sees alone (transport/mpi/agreement.h's AgreeOnAcceptanceOverMpi),
// over the node's inline exchange when the ranks share one: one cache-line exchange instead of 2 log2 P MPI messages.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_SHM_INLINE_AGREEMENT_H_
#define KCOLL_COLLECTIVES_TRANSPORT_SHM_INLINE_AGREEMENT_H_

#include "absl/status/status.h"
#include "collectives/transport/shm/inline_exchange.h"
#include "collectives/transport/transport.h"

namespace kcoll {

// Every rank publishes whether it accepted its arguments of `call` (`local`); OK when all did. Else every rank
// returns InvalidArgument naming the lowest rejecting rank and its message (sent in a second exchange, on this error
// path only; a rejecting rank returns its own `local`). `call.signature` must be the same on every rank whatever
// its arguments. DeadlineExceeded, worded as the transports word theirs, when a rank did not arrive in time.
absl::Status AgreeOnAcceptanceInline(InlineExchange& exchange, const Transport::CallInfo& call,
                                     const absl::Status& local);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_SHM_INLINE_AGREEMENT_H_
