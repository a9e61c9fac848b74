// What a transport's factory receives and returns: the transport a communicator's transfers go over and the kernels
// that go with it. Each transport folder has one factory (mpi/mpi_execution.h, shm/shm_execution.h,
// nccl/nccl_execution.h); transports.h lists them.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_EXECUTION_H_
#define KCOLL_COLLECTIVES_TRANSPORT_EXECUTION_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "collectives/kernels/backend.h"
#include "collectives/kernels/kernels.h"
#include "collectives/options.h"
#include "collectives/transport/mpi/mpi_transport.h"
#include "collectives/transport/timeout.h"
#include "collectives/transport/transport.h"

namespace kcoll {

struct ExecutionRequest {
  // MPI point-to-point over (a duplicate of) the application's communicator: the MPI transport's own, and the
  // bootstrap every other transport is set up over before it is released.
  std::unique_ptr<MpiTransport> mpi;
  ExecBackend backend = ExecBackend::kSerial;
  GpuOptions gpu;
  TimeoutSettings timeout;
  // The node of every rank (base/topology.h: node_of, emulated nodes included); empty: one node.
  std::vector<int> node_of;
  // The shared-memory transport's settings as the machine measured them (the communicator's profile): the
  // single-copy threshold (ShmOptions::single_copy_bytes; 0: never) and the slot size, and where they came from.
  // KCOLL_SHM_SINGLE_COPY and KCOLL_SHM_SLOT_BYTES win over them unless `pinned` (a measurement that must run with
  // exactly these). Unset: the transport's defaults.
  struct ShmSettings {
    std::optional<size_t> single_copy_bytes;
    std::optional<size_t> slot_bytes;
    std::string source;
    bool pinned = false;
  };
  ShmSettings shm;
};

struct Execution {
  std::unique_ptr<Transport> transport;
  std::unique_ptr<Kernels> kernels;
  std::string description;  // one line: transport, path, device
  // The shared-memory transport's single-copy threshold in effect (0: none: not shm, never, or the kernel does not
  // let ranks read each other's memory) and slot size (0: not shm).
  size_t shm_single_copy_bytes = 0;
  size_t shm_slot_bytes = 0;
  // Whether the communicator chooses per call between the slots and single copy (CopyChoice) from that threshold, and
  // whether the collectives that reduce do too (else they keep the slots).
  bool shm_copy_choice = false;
  bool shm_copy_choice_reductions = false;
  // Whether the communicator chooses per call, for the calls from that size whose messages go through the slots,
  // between cached and streaming stores into them (KCOLL_SHM_STREAM_STORES; docs/shm.md).
  bool shm_store_choice = false;
  size_t shm_store_choice_from_bytes = 0;
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_EXECUTION_H_
