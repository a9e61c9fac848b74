// Every collective's two spellings on the Communicator, blocking (Name) and nonblocking (IName): each builds the
// call's descriptor (CollectiveCall, collective_call.h) and hands it to the one front door, Call (communicator.cc) or
// ICall (communicator_nonblocking.cc). The parameter lists are shared by the collectives whose calls have the same
// arguments; communicator.h declares each spelling with its own parameter names and documentation.
#include "collectives/collective_call.h"
#include "collectives/communicator.h"

namespace kcoll {

// clang-format off (parameter lists, which it would read as expressions)
// send, recv, a count and the type, then: an op (reducing), a root (rooted), both (Reduce) or neither (moving).
#define KCOLL_PARAMS_MOVING const void *send, void *recv, size_t count, DataType type
#define KCOLL_PARAMS_REDUCING KCOLL_PARAMS_MOVING, ReduceOp op
#define KCOLL_PARAMS_ROOTED KCOLL_PARAMS_MOVING, int root
#define KCOLL_PARAMS_REDUCE KCOLL_PARAMS_REDUCING, int root
#define KCOLL_ARGS_MOVING send, recv, count, type
#define KCOLL_ARGS_REDUCING KCOLL_ARGS_MOVING, op
#define KCOLL_ARGS_ROOTED KCOLL_ARGS_MOVING, root
#define KCOLL_ARGS_REDUCE KCOLL_ARGS_REDUCING, root
// clang-format on

#define KCOLL_NONBLOCKING_SPELLING(Name, Shape)                                                        \
  Request Communicator::I##Name(KCOLL_PARAMS_##Shape, const CallOptions& options, MemoryKind memory) { \
    return ICall(CollectiveCall::Name(KCOLL_ARGS_##Shape, options, memory));                           \
  }
#define KCOLL_SPELLINGS(Name, Shape)                                                                     \
  absl::Status Communicator::Name(KCOLL_PARAMS_##Shape, const CallOptions& options, MemoryKind memory) { \
    return Call(CollectiveCall::Name(KCOLL_ARGS_##Shape, options, memory));                              \
  }                                                                                                      \
  KCOLL_NONBLOCKING_SPELLING(Name, Shape)

// The blocking AllReduce is communicator_inline.cc's: a repeat of the latest inline call skips the descriptor.
KCOLL_NONBLOCKING_SPELLING(AllReduce, REDUCING)
KCOLL_SPELLINGS(ReduceScatter, REDUCING)
KCOLL_SPELLINGS(Scan, REDUCING)
KCOLL_SPELLINGS(ExScan, REDUCING)
KCOLL_SPELLINGS(Reduce, REDUCE)
KCOLL_SPELLINGS(Broadcast, ROOTED)
KCOLL_SPELLINGS(Gather, ROOTED)
KCOLL_SPELLINGS(Scatter, ROOTED)
KCOLL_SPELLINGS(AllGather, MOVING)
KCOLL_SPELLINGS(AllToAll, MOVING)
KCOLL_SPELLINGS(SendRecv, MOVING)

// The V-collectives: counts (and displacements) per rank, each its own list.
// clang-format off
#define KCOLL_PARAMS_ALL_GATHER_V \
  const void* send, size_t sendcount, void* recv, const size_t* recvcounts, const size_t* recvdispls, DataType type
#define KCOLL_ARGS_ALL_GATHER_V send, sendcount, recv, recvcounts, recvdispls, type
#define KCOLL_PARAMS_ALL_TO_ALL_V                                                                             \
  const void* send, const size_t* sendcounts, const size_t* senddispls, void* recv, const size_t* recvcounts, \
      const size_t* recvdispls, DataType type
#define KCOLL_ARGS_ALL_TO_ALL_V send, sendcounts, senddispls, recv, recvcounts, recvdispls, type
#define KCOLL_PARAMS_REDUCE_SCATTER_V const void* send, void* recv, const size_t* recvcounts, DataType type, ReduceOp op
#define KCOLL_ARGS_REDUCE_SCATTER_V send, recv, recvcounts, type, op
#define KCOLL_PARAMS_GATHER_V KCOLL_PARAMS_ALL_GATHER_V, int root
#define KCOLL_ARGS_GATHER_V KCOLL_ARGS_ALL_GATHER_V, root
#define KCOLL_PARAMS_SCATTER_V                                                                                       \
  const void* send, const size_t* sendcounts, const size_t* senddispls, void* recv, size_t recvcount, DataType type, \
      int root
#define KCOLL_ARGS_SCATTER_V send, sendcounts, senddispls, recv, recvcount, type, root
// clang-format on

KCOLL_SPELLINGS(AllGatherV, ALL_GATHER_V)
KCOLL_SPELLINGS(AllToAllV, ALL_TO_ALL_V)
KCOLL_SPELLINGS(ReduceScatterV, REDUCE_SCATTER_V)
KCOLL_SPELLINGS(GatherV, GATHER_V)
KCOLL_SPELLINGS(ScatterV, SCATTER_V)

absl::Status Communicator::Barrier(const CallOptions& options) { return Call(CollectiveCall::Barrier(options)); }
Request Communicator::IBarrier(const CallOptions& options) { return ICall(CollectiveCall::Barrier(options)); }

}  // namespace kcoll
