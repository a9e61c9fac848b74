// Argument checks shared by every collective, run before any traffic so that every rank given the same arguments
// fails the same way. Messages name the argument and its value.
#ifndef KCOLL_COLLECTIVES_VALIDATE_H_
#define KCOLL_COLLECTIVES_VALIDATE_H_

#include "absl/status/status.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/kernels/kernels.h"

namespace kcoll {

// Checks type, op, root and the buffers `args` names for a communicator of `nranks` ranks whose transport
// can reach `memory` when `reachable`. Send and recv may overlap only in NCCL's in-place positions: send == recv
// (AllReduce, Broadcast, Reduce, AllToAll, SendRecv), send == recv + rank * count (AllGather; Gather on the root),
// recv == send + rank * count (ReduceScatter; Scatter on the root).
absl::Status ValidateArgs(const CollectiveArgs& args, int rank, int nranks, MemoryKind memory, bool reachable);

// Elements the send and recv buffers of `args` hold on `rank` (NCCL's conventions; see CollectiveArgs).
size_t SendCount(const CollectiveArgs& args, int rank, int nranks);
size_t RecvCount(const CollectiveArgs& args, int rank, int nranks);

// nccl-tests' size S of the call (NcclTestsBytes); for the v-collectives the whole gathered buffer (AllGatherV) or
// this rank's send buffer (AllToAllV), from the counts.
uint64_t CallBytes(const CollectiveArgs& args, int rank, int nranks);
// The size `auto` prices the call at: count * element size, the per-rank block of the equal-count form for the
// v-collectives (CallBytes / nranks).
size_t PricedBytes(const CollectiveArgs& args, int rank, int nranks);
// The sum of `nranks` per-rank counts (0 for a null array).
uint64_t TotalCount(const size_t* counts, int nranks);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_VALIDATE_H_
