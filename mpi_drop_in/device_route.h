// The device route. When KCOLL_MPI_DEVICE names a transport that moves device memory (nccl, cuda_ipc or mpi) and the
// library was built with CUDA kernels, a blocking MPI_Allreduce, MPI_Reduce, MPI_Bcast, MPI_Allgather, MPI_Alltoall
// or MPI_Reduce_scatter_block whose buffers are device memory on every rank runs on a second kcoll communicator of
// the MPI communicator: CUDA kernels over that transport, the data staying on the device over nccl and cuda_ipc.
//
// Which memory a buffer is in is each rank's own business, so the ranks agree on the route for each such call: one
// 4-byte AllReduce (minimum) on the host communicator of whether this rank's buffers of the call are all device
// memory, with contiguous datatypes and (for the data movement) not MPI_IN_PLACE where kcoll's in-place form differs
// from MPI's. Where some rank's are not, every rank takes the host route, and device buffers are copied through host
// memory on their ranks (host_mirror.h), as under `stage`. The other collectives, and every nonblocking call (which
// may not wait for the others to agree), always take the host route. The device communicator is made at the first
// call agreed on, by every rank; where it cannot be made on some rank, no rank uses it.
#ifndef KCOLL_MPI_DROP_IN_DEVICE_ROUTE_H_
#define KCOLL_MPI_DROP_IN_DEVICE_ROUTE_H_

#include <mpi.h>

#include <cstddef>
#include <optional>

#include "collectives/communicator.h"

namespace kcoll::drop_in {

// Whether KCOLL_MPI_DEVICE asks for the device route (and this library can take it).
bool DeviceRouteOn();

// The device communicator for this call of a function listed above, or null (take the host route). `host` is the
// call's kcoll communicator; `mine`: whether this rank's buffers qualify (BuffersOnDevice). Collective over `comm`:
// called by every rank for every such call while DeviceRouteOn().
Communicator* AgreeOnDeviceRoute(MPI_Comm comm, Communicator* host, bool mine);

// Whether every buffer given is device memory; null buffers (not used on this rank) do not count.
bool BuffersOnDevice(std::initializer_list<const void*> buffers);

// The bytes of `count` elements of `type` when the datatype is contiguous (its elements end to end, no gap), else
// nullopt.
std::optional<size_t> ContiguousBytes(long long count, MPI_Datatype type);

}  // namespace kcoll::drop_in

#endif  // KCOLL_MPI_DROP_IN_DEVICE_ROUTE_H_
