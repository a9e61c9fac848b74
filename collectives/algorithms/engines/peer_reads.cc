#include "collectives/algorithms/engines/peer_reads.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace kcoll {

absl::StatusOr<const PeerMemory::Buffers*> PeerBuffers(const CollectiveArgs& args, const Resources& resources) {
  if (resources.peer_memory == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        CollectiveName(args.collective),
        " (direct): needs a communicator whose ranks share one node (over the shm transport, or with CUDA kernels) "
        "and buffers from Communicator::Allocate"));
  }
  if (resources.peer_buffers == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(CollectiveName(args.collective),
                     " (direct): the buffers of some rank are not registered (every rank must pass buffers from "
                     "Communicator::Allocate)"));
  }
  return resources.peer_buffers;
}

absl::Status ReduceFromEveryRank(const CollectiveArgs& args, Resources& resources, const PeerMemory::Buffers& peers,
                                 unsigned char* dst, size_t at, size_t count) {
  const int n = resources.peer_memory->size(), me = resources.peer_memory->rank();
  Kernels& kernels = resources.kernels;
  KCOLL_RETURN_IF_ERROR(
      kernels.Reduce(args.op, args.type, dst, peers.send[me] + at, peers.send[(me + 1) % n] + at, count));
  for (int k = 2; k < n; ++k) {
    KCOLL_RETURN_IF_ERROR(kernels.Reduce(args.op, args.type, dst, dst, peers.send[(me + k) % n] + at, count));
  }
  return absl::OkStatus();
}

absl::Status NodeBarrier(Resources& resources) {
  resources.kernels.Fence();
  return resources.peer_memory->Barrier();
}

}  // namespace kcoll
