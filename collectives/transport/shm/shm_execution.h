// The shared-memory transport's factory: the ranks of each node (ExecutionRequest::node_of, emulated nodes
// included) exchange through a segment of their own, ranks of other nodes over MPI (RoutedTransport); host kernels
// fenced after every launch (the transport reads and writes buffers from the host). Fails, on every rank alike, if
// a node's ranks are not on one host.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_SHM_SHM_EXECUTION_H_
#define KCOLL_COLLECTIVES_TRANSPORT_SHM_SHM_EXECUTION_H_

#include "absl/status/statusor.h"
#include "collectives/transport/execution.h"

namespace kcoll {

absl::StatusOr<Execution> MakeShmExecution(ExecutionRequest request);

// KCOLL_SHM_SPIN as the transport reads it: polls without progress before a wait yields its core (a size: 16, 1K);
// 0 when unset (chosen from the cores, shm::ChooseHostSpinPolls). InvalidArgument naming the variable and its value
// when it is not a size or is over 2^30.
absl::StatusOr<int> SpinPollsFromEnv();

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_SHM_SHM_EXECUTION_H_
