#include "collectives/algorithms/direct.h"

#include "absl/strings/str_cat.h"
#include "collectives/algorithms/partition.h"
#include "collectives/status_macros.h"

namespace kcoll {
namespace {

// The peers' buffers of this call, or why the call cannot run zero-copy.
absl::StatusOr<const PeerMemory::Buffers*> PeerBuffers(const CollectiveArgs& args, const Resources& resources) {
  if (resources.peer_memory == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        CollectiveName(args.collective),
        " (direct): needs a communicator whose ranks share one node over the shm transport, and buffers from "
        "Communicator::Allocate"));
  }
  if (resources.peer_buffers == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(CollectiveName(args.collective),
                     " (direct): the buffers of some rank are not registered (every rank must pass buffers from "
                     "Communicator::Allocate)"));
  }
  return resources.peer_buffers;
}

// Waits for the kernels of this rank, then for every rank of the node.
absl::Status Barrier(Resources& resources) {
  resources.kernels.Fence();
  return resources.peer_memory->Barrier();
}

}  // namespace

absl::Status DirectAllReduce(const CollectiveArgs& args, Resources& resources) {
  KCOLL_ASSIGN_OR_RETURN(const PeerMemory::Buffers* peers, PeerBuffers(args, resources));
  Kernels& kernels = resources.kernels;
  const int n = resources.peer_memory->size(), me = resources.peer_memory->rank();
  const size_t elem = DataTypeSize(args.type);
  const Block mine = BlockOf(args.count, n, me);
  unsigned char* recv = peers->recv[me];
  if (n == 1) {
    if (args.send != args.recv) KCOLL_RETURN_IF_ERROR(kernels.Copy(recv, peers->send[me], args.count * elem));
    return Barrier(resources);
  }
  // This rank's block, reduced from every rank's send buffer (its own first: it is likely in cache).
  if (mine.count > 0) {
    const size_t at = mine.offset * elem;
    const int first = (me + 1) % n;
    KCOLL_RETURN_IF_ERROR(
        kernels.Reduce(args.op, args.type, recv + at, peers->send[me] + at, peers->send[first] + at, mine.count));
    for (int k = 2; k < n; ++k) {
      const int p = (me + k) % n;
      KCOLL_RETURN_IF_ERROR(kernels.Reduce(args.op, args.type, recv + at, recv + at, peers->send[p] + at, mine.count));
    }
  }
  KCOLL_RETURN_IF_ERROR(Barrier(resources));
  // Every other block, from the rank that reduced it, starting with the next rank's so that ranks spread their reads.
  for (int k = 1; k < n; ++k) {
    const int p = (me + k) % n;
    const Block block = BlockOf(args.count, n, p);
    if (block.count == 0) continue;
    const size_t at = block.offset * elem;
    KCOLL_RETURN_IF_ERROR(kernels.Copy(recv + at, peers->recv[p] + at, block.count * elem));
  }
  return Barrier(resources);
}

absl::Status DirectReduceScatter(const CollectiveArgs& args, Resources& resources) {
  KCOLL_ASSIGN_OR_RETURN(const PeerMemory::Buffers* peers, PeerBuffers(args, resources));
  Kernels& kernels = resources.kernels;
  const int n = resources.peer_memory->size(), me = resources.peer_memory->rank();
  const size_t bytes = args.count * DataTypeSize(args.type);
  const size_t at = static_cast<size_t>(me) * bytes;
  unsigned char* recv = peers->recv[me];
  if (bytes > 0) {
    if (n == 1) {
      if (recv != peers->send[me]) KCOLL_RETURN_IF_ERROR(kernels.Copy(recv, peers->send[me], bytes));
    } else {
      KCOLL_RETURN_IF_ERROR(
          kernels.Reduce(args.op, args.type, recv, peers->send[me] + at, peers->send[(me + 1) % n] + at, args.count));
      for (int k = 2; k < n; ++k) {
        KCOLL_RETURN_IF_ERROR(
            kernels.Reduce(args.op, args.type, recv, recv, peers->send[(me + k) % n] + at, args.count));
      }
    }
  }
  return Barrier(resources);
}

absl::Status DirectAllGather(const CollectiveArgs& args, Resources& resources) {
  KCOLL_ASSIGN_OR_RETURN(const PeerMemory::Buffers* peers, PeerBuffers(args, resources));
  const int n = resources.peer_memory->size(), me = resources.peer_memory->rank();
  const size_t bytes = args.count * DataTypeSize(args.type);
  unsigned char* recv = peers->recv[me];
  if (bytes > 0) {
    for (int k = 0; k < n; ++k) {
      const int p = (me + k) % n;
      unsigned char* dst = recv + static_cast<size_t>(p) * bytes;
      if (dst == peers->send[p]) continue;  // this rank's own block, in place
      KCOLL_RETURN_IF_ERROR(resources.kernels.Copy(dst, peers->send[p], bytes));
    }
  }
  return Barrier(resources);
}

absl::Status DirectBroadcast(const CollectiveArgs& args, Resources& resources) {
  KCOLL_ASSIGN_OR_RETURN(const PeerMemory::Buffers* peers, PeerBuffers(args, resources));
  const int me = resources.peer_memory->rank();
  const size_t bytes = args.count * DataTypeSize(args.type);
  // On one node, the root's rank within the node is its rank.
  const unsigned char* source = peers->send[args.root];
  if (bytes > 0 && peers->recv[me] != source) {
    KCOLL_RETURN_IF_ERROR(resources.kernels.Copy(peers->recv[me], source, bytes));
  }
  return Barrier(resources);
}

}  // namespace kcoll
