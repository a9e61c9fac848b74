// The first of a call's checks before any traffic: each rank checks its own arguments, alone, so that every rank
// given the same arguments fails the same way (messages name the argument and its value). The checks that involve
// the other ranks come after it: Communicator::AgreeOnAcceptance (every rank learns whether all accepted theirs; the
// rooted collectives, Split) and CompareArgumentsAcrossRanks (argument_comparison.h; KCOLL_CHECK_ARGS=1).
#ifndef KCOLL_COLLECTIVES_ARGUMENT_CHECKS_H_
#define KCOLL_COLLECTIVES_ARGUMENT_CHECKS_H_

#include "absl/status/status.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/kernels/kernels.h"

namespace kcoll {

// Checks type, op, root, counts and the buffers `args` names for a communicator of `nranks` ranks whose transport
// can reach `memory` when `reachable`. Send and recv may overlap only in NCCL's in-place positions: send == recv
// (AllReduce, Broadcast, Reduce, AllToAll, SendRecv), send == recv + rank * count (AllGather; Gather on the root),
// recv == send + rank * count (ReduceScatter; Scatter on the root).
absl::Status CheckArguments(const CollectiveArgs& args, int rank, int nranks, MemoryKind memory, bool reachable);

// Whether `collective` can run in place (one buffer, NCCL's offsets): all but AllToAllV and ReduceScatterV, whose
// in-place calls CheckArguments refuses.
bool HasInPlaceForm(Collective collective);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ARGUMENT_CHECKS_H_
