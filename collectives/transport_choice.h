// Which transport and kernels a communicator runs on. The transport: CommunicatorOptions::transport, else
// $KCOLL_TRANSPORT (mpi, shm, nccl, cuda_ipc, or auto), else auto, which follows the topology once it is known:
//
//   host kernels     shm       shared memory between the ranks of a node (no MPI call on the path of a transfer),
//                              MPI between nodes
//   cuda kernels     cuda_ipc  when every rank is on one node and CUDA IPC measures faster there than MPI
//                              (ChooseDeviceTransport below); otherwise
//                    mpi       MPI point-to-point (device buffers: CUDA-aware MPI or staged)
//
// NCCL, and CUDA IPC across several nodes, are chosen only when asked for. collectives/transport/transports.h lists
// the transports and builds them.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_CHOICE_H_
#define KCOLL_COLLECTIVES_TRANSPORT_CHOICE_H_

#include <mpi.h>

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "base/topology.h"
#include "base/transport_kind.h"
#include "collectives/kernels/backend.h"
#include "collectives/options.h"
#include "collectives/transport/execution.h"
#include "collectives/transport/transports.h"

namespace kcoll {

// `option` if set, else $KCOLL_TRANSPORT; nullopt means auto.
absl::StatusOr<std::optional<TransportKind>> ChooseTransportKind(std::optional<TransportKind> option);

// What auto picks for `topology` and `backend` without measuring: shm for host kernels, mpi for cuda kernels.
TransportKind AutoTransport(const Topology& topology, ExecBackend backend);

// The slowest rank's median time of one exchange with its ring neighbours (send to the next rank, receive from the
// previous, both synchronised), in microseconds, at the two sizes ChooseDeviceTransport measures.
struct ExchangeTimes {
  double small_us = 0;  // kSmallExchangeBytes
  double large_us = 0;  // kLargeExchangeBytes
};
inline constexpr size_t kSmallExchangeBytes = 8;
inline constexpr size_t kLargeExchangeBytes = size_t{4} << 20;

struct TransportDecision {
  TransportKind kind;
  std::string reason;  // one line, for KCOLL_DEBUG=INFO: what was measured or why nothing was
};

// The rule: cuda_ipc when it is no slower than MPI at both sizes, else mpi (auto never takes a path that measured
// slower there).
TransportDecision ChooseByExchangeTimes(const ExchangeTimes& cuda_ipc, const ExchangeTimes& mpi);

// `auto` with cuda kernels, collective over `comm`. Every rank on one node (topology.nnodes == 1) and at least two
// ranks: both transports are made over duplicates of `comm` (by their own factories, with `gpu` and `timeout`) and
// timed by ring exchanges of the two sizes, 5 interleaved rounds of a few exchanges after a warm-up, each rank's
// median, the slowest rank's taken so that every rank decides alike; then ChooseByExchangeTimes. Otherwise, or when
// cuda_ipc cannot be made here (no GPU, no CUDA IPC between the processes), mpi, with the reason. The same on every
// rank.
TransportDecision ChooseDeviceTransport(MPI_Comm comm, const Topology& topology, const GpuOptions& gpu,
                                        const TimeoutSettings& timeout);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_CHOICE_H_
