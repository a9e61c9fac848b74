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
};

struct Execution {
  std::unique_ptr<Transport> transport;
  std::unique_ptr<Kernels> kernels;
  std::string description;  // one line: transport, path, device
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_EXECUTION_H_
