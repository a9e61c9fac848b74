// One collective call, described: which collective, its buffers, counts, type, op and root, the v-collectives'
// arrays, the caller's options and where the buffers live. Every spelling of a collective (the Communicator's
// methods, blocking and nonblocking, Call and ICall by name, the C API in kcoll.h, the Views in views.h) builds one
// of these with the collective's builder below and hands it to Communicator::Call or Communicator::ICall: the one
// front door, which runs the same stages for every collective (communicator.cc: validate, resolve, agree, run,
// record).
//
// The builders give each argument NCCL's meaning (MPI's for the scans and the v-collectives); communicator.h
// documents each collective beside its method.
#ifndef KCOLL_COLLECTIVES_COLLECTIVE_CALL_H_
#define KCOLL_COLLECTIVES_COLLECTIVE_CALL_H_

#include <cstddef>
#include <vector>

#include "base/names.h"
#include "base/transport_kind.h"
#include "base/types.h"
#include "collectives/options.h"

namespace kcoll {

struct CollectiveCall {
  Collective collective = Collective::kAllReduce;
  const void* send = nullptr;
  void* recv = nullptr;
  // NCCL's conventions: the AllReduce/Broadcast/Reduce/scan element count, the per-rank receive count of
  // ReduceScatter, the per-rank send count of AllGather and AllGatherV, the per-peer count of AllToAll, Gather and
  // Scatter, the receive count of ScatterV; unused by AllToAllV, ReduceScatterV and Barrier.
  size_t count = 0;
  DataType type = DataType::kFloat32;
  ReduceOp op = ReduceOp::kSum;  // read by the reductions only
  int root = 0;                  // read by the rooted collectives only
  // The v-collectives' per-rank counts and displacements (one entry per rank); null elsewhere.
  const size_t* send_counts = nullptr;
  const size_t* send_displs = nullptr;
  const size_t* recv_counts = nullptr;
  const size_t* recv_displs = nullptr;
  CallOptions options;
  MemoryKind memory = MemoryKind::kHost;

  // Every field but the v-collectives' arrays. Built in place, field by field: zeroing the struct first cost a small
  // call's entry a block clear as long as the rest of it.
  static CollectiveCall Of(Collective collective, const void* send, void* recv, size_t count, DataType type,
                           ReduceOp op, int root, const CallOptions& options, MemoryKind memory) {
    return CollectiveCall{collective, send,    recv,    count,   type,    op,    root,
                          nullptr,    nullptr, nullptr, nullptr, options, memory};
  }

  // (AllReduce and Named are defined here, inline: the paths of the smallest calls start with them.)
  static CollectiveCall AllReduce(const void* send, void* recv, size_t count, DataType type, ReduceOp op,
                                  const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost) {
    return Of(Collective::kAllReduce, send, recv, count, type, op, 0, options, memory);
  }
  static CollectiveCall ReduceScatter(const void* send, void* recv, size_t recvcount, DataType type, ReduceOp op,
                                      const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);
  static CollectiveCall AllGather(const void* send, void* recv, size_t sendcount, DataType type,
                                  const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);
  static CollectiveCall Broadcast(const void* send, void* recv, size_t count, DataType type, int root,
                                  const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);
  static CollectiveCall Reduce(const void* send, void* recv, size_t count, DataType type, ReduceOp op, int root,
                               const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);
  static CollectiveCall AllToAll(const void* send, void* recv, size_t count, DataType type,
                                 const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);
  static CollectiveCall Gather(const void* send, void* recv, size_t count, DataType type, int root,
                               const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);
  static CollectiveCall Scatter(const void* send, void* recv, size_t count, DataType type, int root,
                                const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);
  static CollectiveCall SendRecv(const void* send, void* recv, size_t count, DataType type,
                                 const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);
  static CollectiveCall Barrier(const CallOptions& options = {});
  static CollectiveCall Scan(const void* send, void* recv, size_t count, DataType type, ReduceOp op,
                             const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);
  static CollectiveCall ExScan(const void* send, void* recv, size_t count, DataType type, ReduceOp op,
                               const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);
  static CollectiveCall AllGatherV(const void* send, size_t sendcount, void* recv, const size_t* recvcounts,
                                   const size_t* recvdispls, DataType type, const CallOptions& options = {},
                                   MemoryKind memory = MemoryKind::kHost);
  static CollectiveCall AllToAllV(const void* send, const size_t* sendcounts, const size_t* senddispls, void* recv,
                                  const size_t* recvcounts, const size_t* recvdispls, DataType type,
                                  const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);
  static CollectiveCall ReduceScatterV(const void* send, void* recv, const size_t* recvcounts, DataType type,
                                       ReduceOp op, const CallOptions& options = {},
                                       MemoryKind memory = MemoryKind::kHost);
  static CollectiveCall GatherV(const void* send, size_t sendcount, void* recv, const size_t* recvcounts,
                                const size_t* recvdispls, DataType type, int root, const CallOptions& options = {},
                                MemoryKind memory = MemoryKind::kHost);
  static CollectiveCall ScatterV(const void* send, const size_t* sendcounts, const size_t* senddispls, void* recv,
                                 size_t recvcount, DataType type, int root, const CallOptions& options = {},
                                 MemoryKind memory = MemoryKind::kHost);
  // Any collective without per-rank arrays by name, for code that sweeps collectives: `op` is kept for the
  // reductions only and `root` for the rooted collectives only (both take their defaults elsewhere).
  static CollectiveCall Named(Collective collective, const void* send, void* recv, size_t count, DataType type,
                              ReduceOp op, int root, const CallOptions& options = {},
                              MemoryKind memory = MemoryKind::kHost) {
    if (collective == Collective::kBarrier) return Barrier(options);
    return Of(collective, send, recv, count, type, Reduces(collective) ? op : ReduceOp::kSum,
              IsRooted(collective) ? root : 0, options, memory);
  }
  // The same for any collective, a v-collective taking equal blocks of `count` elements laid out as its non-v form
  // lays them out: `counts` (every entry `count`) and `displs` (entry j: j * count) hold one entry per rank and are
  // the caller's, kept as the call's arrays are (EqualBlocks makes them).
  static CollectiveCall NamedWithBlocks(Collective collective, const void* send, void* recv, size_t count,
                                        DataType type, ReduceOp op, int root, const size_t* counts,
                                        const size_t* displs, const CallOptions& options = {},
                                        MemoryKind memory = MemoryKind::kHost);
};

// The arrays of NamedWithBlocks for `nranks` ranks.
struct EqualBlocks {
  EqualBlocks(size_t count, int nranks);
  std::vector<size_t> counts, displs;
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_COLLECTIVE_CALL_H_
