// Which transport and kernels a communicator runs on. The transport: CommunicatorOptions::transport, else
// $KCOLL_TRANSPORT (mpi, shm, nccl, or auto), else auto, which follows the topology once it is known:
//
//   host kernels     shm   shared memory between the ranks of a node (no MPI call on the path of a transfer),
//                          MPI between nodes
//   cuda kernels     mpi   MPI point-to-point (device buffers: CUDA-aware MPI or staged)
//
// NCCL is chosen only when asked for. collectives/transport/transports.h lists the transports and builds them.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_CHOICE_H_
#define KCOLL_COLLECTIVES_TRANSPORT_CHOICE_H_

#include <optional>

#include "absl/status/statusor.h"
#include "base/topology.h"
#include "base/transport_kind.h"
#include "collectives/kernels/backend.h"
#include "collectives/transport/execution.h"
#include "collectives/transport/transports.h"

namespace kcoll {

// `option` if set, else $KCOLL_TRANSPORT; nullopt means auto.
absl::StatusOr<std::optional<TransportKind>> ChooseTransportKind(std::optional<TransportKind> option);

// What auto picks for `topology` and `backend` (see above).
TransportKind AutoTransport(const Topology& topology, ExecBackend backend);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_CHOICE_H_
