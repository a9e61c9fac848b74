// The sizes of a collective call, from its arguments: the elements each rank's buffers hold, nccl-tests' size S, and
// the size `auto` prices.
#ifndef KCOLL_COLLECTIVES_CALL_SIZES_H_
#define KCOLL_COLLECTIVES_CALL_SIZES_H_

#include <cstddef>
#include <cstdint>

#include "collectives/algorithms/algorithm.h"

namespace kcoll {

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

#endif  // KCOLL_COLLECTIVES_CALL_SIZES_H_
