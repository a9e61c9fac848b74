// The transports a communicator can run on, in one list. A new transport is a folder with a factory (execution.h
// says what it receives and returns), a TransportKind with its name (transport_kind.h), and one line in the list
// (transports.cc).
#ifndef KCOLL_COLLECTIVES_TRANSPORT_TRANSPORTS_H_
#define KCOLL_COLLECTIVES_TRANSPORT_TRANSPORTS_H_

#include <optional>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "collectives/kernels/kernels.h"
#include "collectives/transport/execution.h"
#include "collectives/transport/transport_kind.h"

namespace kcoll {

struct TransportEntry {
  TransportKind kind;
  std::optional<MemoryKind> buffers;  // the only kind of buffer it moves, where it is limited to one
  absl::StatusOr<Execution> (*make)(ExecutionRequest request);
};

absl::Span<const TransportEntry> Transports();

// The transport of `kind` with the kernels of request.backend. Collective over request.mpi's communicator; an
// error (a backend whose buffers the transport cannot move, a transport this build lacks) is the same on every rank.
absl::StatusOr<Execution> MakeExecution(TransportKind kind, ExecutionRequest request);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_TRANSPORTS_H_
