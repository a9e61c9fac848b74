// The vendor baseline: NCCL's own collectives, run the way nccl-tests runs them, so the benchmark harness can put an
// "nccl" peer row beside kcoll's rows (as MPI_* rows stand beside them on CPUs). AllReduce, ReduceScatter, AllGather,
// Broadcast and Reduce are NCCL's collectives; AllToAll, Gather, Scatter and SendRecv are grouped ncclSend/ncclRecv
// exactly as nccl-tests builds them. Counts follow NCCL (and kcoll): see CollectiveArgs.
//
// Compiled only when NCCL is present (KCOLL_HAVE_NCCL); the mappings are tested on every such machine, the runs on
// GPU machines.
#ifndef KCOLL_BENCH_IMPLEMENTATIONS_NCCL_COLLECTIVES_H_
#define KCOLL_BENCH_IMPLEMENTATIONS_NCCL_COLLECTIVES_H_

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/names.h"
#include "base/types.h"

namespace kcoll {

// kcoll's element types and operators as NCCL's (every kcoll type and op has one). InvalidArgument for a value
// outside the enums.
absl::StatusOr<ncclDataType_t> ToNcclDataType(DataType type);
absl::StatusOr<ncclRedOp_t> ToNcclRedOp(ReduceOp op);

// Enqueues one collective on `stream` (returns once it is enqueued, like NCCL). `op` is read by the reductions,
// `root` by Broadcast, Reduce, Gather and Scatter. Works with blocking and non-blocking communicators (an
// ncclInProgress answer is polled to completion). InvalidArgument for Barrier, which NCCL does not have, and for
// bad arguments.
absl::Status RunNcclCollective(Collective collective, const void* send, void* recv, size_t count, DataType type,
                               ReduceOp op, int root, ncclComm_t comm, cudaStream_t stream);

// Runs the collective `iterations` times back to back on `stream`, after one untimed warm-up call, and returns this
// rank's average seconds per call, measured with CUDA events around the timed calls (the harness takes the maximum
// over ranks, as for the MPI rows).
absl::StatusOr<double> TimeNcclCollective(Collective collective, const void* send, void* recv, size_t count,
                                          DataType type, ReduceOp op, int root, ncclComm_t comm, cudaStream_t stream,
                                          int iterations);

}  // namespace kcoll

#endif  // KCOLL_BENCH_IMPLEMENTATIONS_NCCL_COLLECTIVES_H_
