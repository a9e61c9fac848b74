// The transports a communicator can run on: the list of base/transport_kind.h, each row's factory building it.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_TRANSPORTS_H_
#define KCOLL_COLLECTIVES_TRANSPORT_TRANSPORTS_H_

#include "absl/status/statusor.h"
#include "base/transport_kind.h"
#include "collectives/transport/execution.h"

namespace kcoll {

// The transport of `kind` with the kernels of request.backend. Collective over request.mpi's communicator; an
// error (a backend whose buffers the transport cannot move, a transport this build lacks) is the same on every rank.
absl::StatusOr<Execution> MakeExecution(TransportKind kind, ExecutionRequest request);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_TRANSPORTS_H_
