// The memory of one registered allocation (Communicator::Allocate): every rank of a node asks for a part of its own
// size, and every rank addresses every part. On host memory the parts are one shared-memory segment of the node
// (shm/registered_memory.cc); on device memory each rank allocates its part on its GPU and the others open it through
// CUDA IPC (cuda_ipc/device_parts.h). RegisteredMemory keeps the allocations and runs the zero-copy calls' exchanges
// and barriers over either kind.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_MAPPED_PARTS_H_
#define KCOLL_COLLECTIVES_TRANSPORT_MAPPED_PARTS_H_

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"

namespace kcoll {

class MappedParts {
 public:
  virtual ~MappedParts() = default;
  // Where rank `local_rank`'s part begins in this process.
  virtual unsigned char* part(int local_rank) const = 0;
};

// Makes one allocation's parts, collectively over the node `comm`: sizes[r] bytes for rank r of `comm` (0 allowed),
// zero-filled, 64-byte aligned, each addressable by every rank. Fails on every rank of `comm` alike, saying why.
using PartsMaker =
    std::function<absl::StatusOr<std::unique_ptr<MappedParts>>(MPI_Comm comm, const std::vector<uint64_t>& sizes)>;

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_MAPPED_PARTS_H_
