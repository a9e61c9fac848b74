// Zero-copy collectives on registered buffers (Communicator::Allocate): every rank of the node reads its peers'
// buffers in place, as NCCL does with registered user buffers within a node, instead of moving them through
// transfers. They need a communicator on one node and registered buffers on every rank (PeerMemory::Exchange tells);
// otherwise they fail with FailedPrecondition on every rank alike, before touching any buffer.
//
// AllReduce: the buffer is cut into one block per rank, each block into chunks of 128 KiB. Each rank reduces chunk c
// of its block straight from every rank's send buffer into its own recv buffer and publishes it; it then copies
// chunk c of every other block from the recv buffer of the rank that reduced it, once that rank has published it
// (while it is still in that rank's cache), and goes on to chunk c + 1. In place, a chunk of a peer's buffer is
// overwritten only after its reducer published it, so after it was read. A last barrier keeps each rank's buffers
// untouched until every peer has read them. Per rank and S
// bytes it reads S (n blocks of S/n) and writes S/n in the first phase, reads and writes (n-1)S/n in the second: about
// 2.5 S of memory traffic per rank for two ranks, where a pipelined ring through copies moves about 3.5 S.
// ReduceScatter is the first phase alone (each block into its rank's recv), AllGather the second (every rank copies
// every peer's send into its recv), Broadcast every rank copying the root's buffer; each ends with the barrier.
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_DIRECT_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_DIRECT_H_

#include "collectives/algorithms/algorithm.h"

namespace kcoll {

absl::Status DirectAllReduce(const CollectiveArgs& args, Resources& resources);
absl::Status DirectReduceScatter(const CollectiveArgs& args, Resources& resources);
absl::Status DirectAllGather(const CollectiveArgs& args, Resources& resources);
absl::Status DirectBroadcast(const CollectiveArgs& args, Resources& resources);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_DIRECT_H_
