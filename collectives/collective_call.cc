#include "collectives/collective_call.h"

namespace kcoll {
namespace {

CollectiveCall WithArrays(CollectiveCall call, const size_t* send_counts, const size_t* send_displs,
                          const size_t* recv_counts, const size_t* recv_displs) {
  call.send_counts = send_counts;
  call.send_displs = send_displs;
  call.recv_counts = recv_counts;
  call.recv_displs = recv_displs;
  return call;
}

}  // namespace

CollectiveCall CollectiveCall::ReduceScatter(const void* send, void* recv, size_t recvcount, DataType type, ReduceOp op,
                                             const CallOptions& options, MemoryKind memory) {
  return Of(Collective::kReduceScatter, send, recv, recvcount, type, op, 0, options, memory);
}

CollectiveCall CollectiveCall::AllGather(const void* send, void* recv, size_t sendcount, DataType type,
                                         const CallOptions& options, MemoryKind memory) {
  return Of(Collective::kAllGather, send, recv, sendcount, type, ReduceOp::kSum, 0, options, memory);
}

CollectiveCall CollectiveCall::Broadcast(const void* send, void* recv, size_t count, DataType type, int root,
                                         const CallOptions& options, MemoryKind memory) {
  return Of(Collective::kBroadcast, send, recv, count, type, ReduceOp::kSum, root, options, memory);
}

CollectiveCall CollectiveCall::Reduce(const void* send, void* recv, size_t count, DataType type, ReduceOp op, int root,
                                      const CallOptions& options, MemoryKind memory) {
  return Of(Collective::kReduce, send, recv, count, type, op, root, options, memory);
}

CollectiveCall CollectiveCall::AllToAll(const void* send, void* recv, size_t count, DataType type,
                                        const CallOptions& options, MemoryKind memory) {
  return Of(Collective::kAllToAll, send, recv, count, type, ReduceOp::kSum, 0, options, memory);
}

CollectiveCall CollectiveCall::Gather(const void* send, void* recv, size_t count, DataType type, int root,
                                      const CallOptions& options, MemoryKind memory) {
  return Of(Collective::kGather, send, recv, count, type, ReduceOp::kSum, root, options, memory);
}

CollectiveCall CollectiveCall::Scatter(const void* send, void* recv, size_t count, DataType type, int root,
                                       const CallOptions& options, MemoryKind memory) {
  return Of(Collective::kScatter, send, recv, count, type, ReduceOp::kSum, root, options, memory);
}

CollectiveCall CollectiveCall::SendRecv(const void* send, void* recv, size_t count, DataType type,
                                        const CallOptions& options, MemoryKind memory) {
  return Of(Collective::kSendRecv, send, recv, count, type, ReduceOp::kSum, 0, options, memory);
}

CollectiveCall CollectiveCall::Barrier(const CallOptions& options) {
  return Of(Collective::kBarrier, nullptr, nullptr, 0, DataType::kUint8, ReduceOp::kSum, 0, options, MemoryKind::kHost);
}

CollectiveCall CollectiveCall::Scan(const void* send, void* recv, size_t count, DataType type, ReduceOp op,
                                    const CallOptions& options, MemoryKind memory) {
  return Of(Collective::kScan, send, recv, count, type, op, 0, options, memory);
}

CollectiveCall CollectiveCall::ExScan(const void* send, void* recv, size_t count, DataType type, ReduceOp op,
                                      const CallOptions& options, MemoryKind memory) {
  return Of(Collective::kExScan, send, recv, count, type, op, 0, options, memory);
}

CollectiveCall CollectiveCall::AllGatherV(const void* send, size_t sendcount, void* recv, const size_t* recvcounts,
                                          const size_t* recvdispls, DataType type, const CallOptions& options,
                                          MemoryKind memory) {
  return WithArrays(Of(Collective::kAllGatherV, send, recv, sendcount, type, ReduceOp::kSum, 0, options, memory),
                    nullptr, nullptr, recvcounts, recvdispls);
}

CollectiveCall CollectiveCall::AllToAllV(const void* send, const size_t* sendcounts, const size_t* senddispls,
                                         void* recv, const size_t* recvcounts, const size_t* recvdispls, DataType type,
                                         const CallOptions& options, MemoryKind memory) {
  return WithArrays(Of(Collective::kAllToAllV, send, recv, 0, type, ReduceOp::kSum, 0, options, memory), sendcounts,
                    senddispls, recvcounts, recvdispls);
}

CollectiveCall CollectiveCall::ReduceScatterV(const void* send, void* recv, const size_t* recvcounts, DataType type,
                                              ReduceOp op, const CallOptions& options, MemoryKind memory) {
  return WithArrays(Of(Collective::kReduceScatterV, send, recv, 0, type, op, 0, options, memory), nullptr, nullptr,
                    recvcounts, nullptr);
}

CollectiveCall CollectiveCall::GatherV(const void* send, size_t sendcount, void* recv, const size_t* recvcounts,
                                       const size_t* recvdispls, DataType type, int root, const CallOptions& options,
                                       MemoryKind memory) {
  return WithArrays(Of(Collective::kGatherV, send, recv, sendcount, type, ReduceOp::kSum, root, options, memory),
                    nullptr, nullptr, recvcounts, recvdispls);
}

CollectiveCall CollectiveCall::ScatterV(const void* send, const size_t* sendcounts, const size_t* senddispls,
                                        void* recv, size_t recvcount, DataType type, int root,
                                        const CallOptions& options, MemoryKind memory) {
  return WithArrays(Of(Collective::kScatterV, send, recv, recvcount, type, ReduceOp::kSum, root, options, memory),
                    sendcounts, senddispls, nullptr, nullptr);
}

CollectiveCall CollectiveCall::NamedWithBlocks(Collective collective, const void* send, void* recv, size_t count,
                                               DataType type, ReduceOp op, int root, const size_t* counts,
                                               const size_t* displs, const CallOptions& options, MemoryKind memory) {
  switch (collective) {
    case Collective::kAllGatherV:
      return AllGatherV(send, count, recv, counts, displs, type, options, memory);
    case Collective::kReduceScatterV:
      return ReduceScatterV(send, recv, counts, type, op, options, memory);
    case Collective::kGatherV:
      return GatherV(send, count, recv, counts, displs, type, root, options, memory);
    case Collective::kScatterV:
      return ScatterV(send, counts, displs, recv, count, type, root, options, memory);
    case Collective::kAllToAllV:
      return AllToAllV(send, counts, displs, recv, counts, displs, type, options, memory);
    default:
      return Named(collective, send, recv, count, type, op, root, options, memory);
  }
}

EqualBlocks::EqualBlocks(size_t count, int nranks) : counts(static_cast<size_t>(nranks), count), displs(counts.size()) {
  for (size_t j = 0; j < displs.size(); ++j) displs[j] = j * count;
}

}  // namespace kcoll
