// The MPI collectives, defined over kcoll: an application linked with (or preloading) libkcoll_mpi.so calls these in
// place of its MPI's. Each call either runs on kcoll or is forwarded to the MPI underneath through its profiling
// name (PMPI_*), decided only from what MPI requires every rank to pass alike (the communicator, the reduction's
// datatype and op, the count's sign), so that no rank waits in kcoll while another waits in MPI. What may differ
// between ranks (a derived datatype of the same signature, MPI_IN_PLACE at the root only) is handled on the rank
// (byte_buffer.h). Data movement runs on bytes; reductions on kcoll's type of the MPI datatype.
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "collectives/communicator.h"
#include "mpi_drop_in/byte_buffer.h"
#include "mpi_drop_in/call_route.h"
#include "mpi_drop_in/call_stats.h"
#include "mpi_drop_in/comm_registry.h"
#include "mpi_drop_in/reentry.h"

namespace kcoll::drop_in {
namespace {

// The reductions whose every rank passes (send, recv, count, datatype, op), send == MPI_IN_PLACE meaning recv holds
// the input: MPI_Allreduce, MPI_Scan and MPI_Exscan, run by `run` (AllReduce, Scan or ExScan) or forwarded.
using PmpiReduction = int (*)(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm);
using KcollReduction = absl::Status (Communicator::*)(const void*, void*, size_t, DataType, ReduceOp,
                                                      const CallOptions&, MemoryKind);
int ElementwiseReduction(MpiFunction function, PmpiReduction forward, KcollReduction run, const void* sendbuf,
                         void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  if (InsideKcoll()) return forward(sendbuf, recvbuf, count, datatype, op, comm);
  auto reduction = NegativeCount(function, count) ? std::nullopt : ReductionOf(function, datatype, op);
  Communicator* c = reduction ? Take(function, comm) : nullptr;
  if (c == nullptr) return forward(sendbuf, recvbuf, count, datatype, op, comm);
  EnterKcoll inside;
  const void* send = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  return Done(function, comm,
              (c->*run)(send, recvbuf, static_cast<size_t>(count), reduction->type, reduction->op, CallOptions(),
                        MemoryKind::kHost));
}

}  // namespace
}  // namespace kcoll::drop_in

using kcoll::DataType;
using kcoll::drop_in::BlockBuffer;
using kcoll::drop_in::ByteBuffer;
using kcoll::drop_in::Done;
using kcoll::drop_in::EnterKcoll;
using kcoll::drop_in::InsideKcoll;
using kcoll::drop_in::MpiFunction;
using kcoll::drop_in::NegativeCount;
using kcoll::drop_in::ReductionOf;
using kcoll::drop_in::Take;

extern "C" {

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return kcoll::drop_in::ElementwiseReduction(MpiFunction::kAllreduce, PMPI_Allreduce, &kcoll::Communicator::AllReduce,
                                              sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm) {
  constexpr MpiFunction kF = MpiFunction::kReduce;
  if (InsideKcoll()) return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
  auto reduction = NegativeCount(kF, count) ? std::nullopt : ReductionOf(kF, datatype, op);
  kcoll::Communicator* c = reduction ? Take(kF, comm) : nullptr;
  if (c == nullptr) return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
  EnterKcoll inside;
  const bool at_root = c->rank() == root;
  const void* send = at_root && sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  return Done(
      kF, comm,
      c->Reduce(send, at_root ? recvbuf : nullptr, static_cast<size_t>(count), reduction->type, reduction->op, root));
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return kcoll::drop_in::ElementwiseReduction(MpiFunction::kScan, PMPI_Scan, &kcoll::Communicator::Scan, sendbuf,
                                              recvbuf, count, datatype, op, comm);
}

int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return kcoll::drop_in::ElementwiseReduction(MpiFunction::kExscan, PMPI_Exscan, &kcoll::Communicator::ExScan, sendbuf,
                                              recvbuf, count, datatype, op, comm);
}

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm) {
  constexpr MpiFunction kF = MpiFunction::kReduceScatterBlock;
  if (InsideKcoll()) return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
  auto reduction = NegativeCount(kF, recvcount) ? std::nullopt : ReductionOf(kF, datatype, op);
  kcoll::Communicator* c = reduction ? Take(kF, comm) : nullptr;
  if (c == nullptr) return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
  EnterKcoll inside;
  const size_t count = static_cast<size_t>(recvcount);
  if (sendbuf != MPI_IN_PLACE) {
    return Done(kF, comm, c->ReduceScatter(sendbuf, recvbuf, count, reduction->type, reduction->op));
  }
  // In place: the input is the whole of recvbuf and the result its first block; kcoll's in-place form leaves the
  // result at the rank's own block, moved to the front after.
  const size_t block = count * kcoll::DataTypeSize(reduction->type);
  char* own = kcoll::drop_in::At(recvbuf, static_cast<size_t>(c->rank()) * block);
  absl::Status status = c->ReduceScatter(recvbuf, own, count, reduction->type, reduction->op);
  if (status.ok() && own != recvbuf) std::memmove(recvbuf, own, block);
  return Done(kF, comm, status);
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  constexpr MpiFunction kF = MpiFunction::kBcast;
  if (InsideKcoll()) return PMPI_Bcast(buffer, count, datatype, root, comm);
  kcoll::Communicator* c = NegativeCount(kF, count) ? nullptr : Take(kF, comm);
  if (c == nullptr) return PMPI_Bcast(buffer, count, datatype, root, comm);
  EnterKcoll inside;
  ByteBuffer bytes(buffer, count, datatype);
  if (!bytes.valid()) return Done(kF, comm, kcoll::drop_in::Undescribed("MPI_Bcast", "count and datatype"));
  void* data = c->rank() == root ? const_cast<void*>(bytes.ForSend()) : bytes.ForReceive();
  absl::Status status = c->Broadcast(data, data, bytes.bytes(), DataType::kUint8, root);
  if (status.ok()) bytes.Finish();
  return Done(kF, comm, status);
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  constexpr MpiFunction kF = MpiFunction::kAllgather;
  if (InsideKcoll()) return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  kcoll::Communicator* c = NegativeCount(kF, recvcount) ? nullptr : Take(kF, comm);
  if (c == nullptr) return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  EnterKcoll inside;
  const size_t n = static_cast<size_t>(c->size());
  ByteBuffer recv(recvbuf, static_cast<long long>(recvcount) * c->size(), recvtype);
  if (!recv.valid()) return Done(kF, comm, kcoll::drop_in::Undescribed("MPI_Allgather", "recvcount and recvtype"));
  const size_t block = recv.bytes() / n;
  absl::Status status;
  if (sendbuf == MPI_IN_PLACE) {
    char* data = static_cast<char*>(recv.ForUpdate());
    status = c->AllGather(data + static_cast<size_t>(c->rank()) * block, data, block, DataType::kUint8);
  } else {
    ByteBuffer send(sendbuf, sendcount, sendtype);
    status = !send.valid()           ? kcoll::drop_in::Undescribed("MPI_Allgather", "sendcount and sendtype")
             : send.bytes() != block ? kcoll::drop_in::SignatureMismatch("MPI_Allgather", send.bytes(), block)
                                     : c->AllGather(send.ForSend(), recv.ForReceive(), block, DataType::kUint8);
  }
  if (status.ok()) recv.Finish();
  return Done(kF, comm, status);
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm) {
  constexpr MpiFunction kF = MpiFunction::kAlltoall;
  if (InsideKcoll()) return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  kcoll::Communicator* c = NegativeCount(kF, recvcount) ? nullptr : Take(kF, comm);
  if (c == nullptr) return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  EnterKcoll inside;
  const size_t n = static_cast<size_t>(c->size());
  ByteBuffer recv(recvbuf, static_cast<long long>(recvcount) * c->size(), recvtype);
  if (!recv.valid()) return Done(kF, comm, kcoll::drop_in::Undescribed("MPI_Alltoall", "recvcount and recvtype"));
  const size_t block = recv.bytes() / n;
  absl::Status status;
  if (sendbuf == MPI_IN_PLACE) {
    void* data = recv.ForUpdate();
    status = c->AllToAll(data, data, block, DataType::kUint8);
  } else {
    ByteBuffer send(sendbuf, static_cast<long long>(sendcount) * c->size(), sendtype);
    status = !send.valid()                  ? kcoll::drop_in::Undescribed("MPI_Alltoall", "sendcount and sendtype")
             : send.bytes() != recv.bytes() ? kcoll::drop_in::SignatureMismatch("MPI_Alltoall", send.bytes() / n, block)
                                            : c->AllToAll(send.ForSend(), recv.ForReceive(), block, DataType::kUint8);
  }
  if (status.ok()) recv.Finish();
  return Done(kF, comm, status);
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) {
  constexpr MpiFunction kF = MpiFunction::kGather;
  if (InsideKcoll()) return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  // The counts differ in meaning between root and the others: only the communicator decides.
  kcoll::Communicator* c = Take(kF, comm);
  if (c == nullptr) return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  EnterKcoll inside;
  const bool at_root = c->rank() == root;
  const size_t n = static_cast<size_t>(c->size());
  ByteBuffer recv(at_root ? recvbuf : nullptr, at_root ? static_cast<long long>(recvcount) * c->size() : 0,
                  at_root ? recvtype : MPI_BYTE);
  absl::Status status;
  if (!recv.valid()) {
    status = kcoll::drop_in::Undescribed("MPI_Gather", "the root's recvcount and recvtype");
  } else if (at_root && sendbuf == MPI_IN_PLACE) {
    const size_t block = recv.bytes() / n;
    char* data = static_cast<char*>(recv.ForUpdate());
    status = c->Gather(data + static_cast<size_t>(root) * block, data, block, DataType::kUint8, root);
  } else {
    ByteBuffer send(sendbuf, sendcount, sendtype);
    if (!send.valid()) {
      status = kcoll::drop_in::Undescribed("MPI_Gather", "sendcount and sendtype");
    } else if (at_root && send.bytes() != recv.bytes() / n) {
      status = kcoll::drop_in::SignatureMismatch("MPI_Gather", send.bytes(), recv.bytes() / n);
    } else {
      status = c->Gather(send.ForSend(), at_root ? recv.ForReceive() : nullptr, send.bytes(), DataType::kUint8, root);
    }
  }
  if (status.ok()) recv.Finish();
  return Done(kF, comm, status);
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  constexpr MpiFunction kF = MpiFunction::kScatter;
  if (InsideKcoll()) return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  kcoll::Communicator* c = Take(kF, comm);
  if (c == nullptr) return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  EnterKcoll inside;
  const bool at_root = c->rank() == root;
  const size_t n = static_cast<size_t>(c->size());
  ByteBuffer send(at_root ? sendbuf : nullptr, at_root ? static_cast<long long>(sendcount) * c->size() : 0,
                  at_root ? sendtype : MPI_BYTE);
  absl::Status status;
  if (!send.valid()) {
    status = kcoll::drop_in::Undescribed("MPI_Scatter", "the root's sendcount and sendtype");
  } else if (at_root && recvbuf == MPI_IN_PLACE) {
    const size_t block = send.bytes() / n;
    const char* data = static_cast<const char*>(send.ForSend());
    status =
        c->Scatter(data, const_cast<char*>(data) + static_cast<size_t>(root) * block, block, DataType::kUint8, root);
  } else {
    ByteBuffer recv(recvbuf, recvcount, recvtype);
    if (!recv.valid()) {
      status = kcoll::drop_in::Undescribed("MPI_Scatter", "recvcount and recvtype");
    } else if (at_root && recv.bytes() != send.bytes() / n) {
      status = kcoll::drop_in::SignatureMismatch("MPI_Scatter", send.bytes() / n, recv.bytes());
    } else {
      status = c->Scatter(at_root ? send.ForSend() : nullptr, recv.ForReceive(), recv.bytes(), DataType::kUint8, root);
      if (status.ok()) recv.Finish();
    }
  }
  return Done(kF, comm, status);
}

int MPI_Barrier(MPI_Comm comm) {
  constexpr MpiFunction kF = MpiFunction::kBarrier;
  if (InsideKcoll()) return PMPI_Barrier(comm);
  kcoll::Communicator* c = Take(kF, comm);
  if (c == nullptr) return PMPI_Barrier(comm);
  EnterKcoll inside;
  return Done(kF, comm, c->Barrier());
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  constexpr MpiFunction kF = MpiFunction::kAllgatherv;
  if (InsideKcoll()) return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  kcoll::Communicator* c = Take(kF, comm);
  if (c == nullptr) return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  EnterKcoll inside;
  const int rank = c->rank();
  BlockBuffer recv(recvbuf, recvcounts, displs, recvtype, c->size());
  absl::Status status;
  if (!recv.valid()) {
    status = absl::InvalidArgumentError("MPI_Allgatherv: a negative recvcount or an invalid recvtype");
  } else if (sendbuf == MPI_IN_PLACE) {
    char* data = static_cast<char*>(recv.ForUpdate());
    status = c->AllGatherV(data + recv.ByteDispl(rank), recv.ByteCount(rank), data, recv.byte_counts(),
                           recv.byte_displs(), DataType::kUint8);
  } else {
    ByteBuffer send(sendbuf, sendcount, sendtype);
    status = !send.valid() ? kcoll::drop_in::Undescribed("MPI_Allgatherv", "sendcount and sendtype")
                           : c->AllGatherV(send.ForSend(), send.bytes(), recv.ForReceive(), recv.byte_counts(),
                                           recv.byte_displs(), DataType::kUint8);
  }
  if (status.ok()) recv.Finish();
  return Done(kF, comm, status);
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  constexpr MpiFunction kF = MpiFunction::kAlltoallv;
  if (InsideKcoll()) {
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
  }
  kcoll::Communicator* c = Take(kF, comm);
  if (c == nullptr) {
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
  }
  EnterKcoll inside;
  BlockBuffer recv(recvbuf, recvcounts, rdispls, recvtype, c->size());
  absl::Status status;
  if (!recv.valid()) {
    status = absl::InvalidArgumentError("MPI_Alltoallv: a negative recvcount or an invalid recvtype");
  } else if (sendbuf == MPI_IN_PLACE) {
    // kcoll's AllToAllV has no in-place form: what is sent is a copy of the receive blocks.
    char* blocks = static_cast<char*>(recv.ForUpdate());
    size_t end = 0;
    for (int j = 0; j < c->size(); ++j) end = std::max(end, recv.ByteDispl(j) + recv.ByteCount(j));
    const std::vector<char> copy(blocks, blocks + end);
    status = c->AllToAllV(copy.data(), recv.byte_counts(), recv.byte_displs(), blocks, recv.byte_counts(),
                          recv.byte_displs(), DataType::kUint8);
  } else {
    BlockBuffer send(sendbuf, sendcounts, sdispls, sendtype, c->size());
    status = !send.valid() ? absl::InvalidArgumentError("MPI_Alltoallv: a negative sendcount or an invalid sendtype")
                           : c->AllToAllV(send.ForSend(), send.byte_counts(), send.byte_displs(), recv.ForReceive(),
                                          recv.byte_counts(), recv.byte_displs(), DataType::kUint8);
  }
  if (status.ok()) recv.Finish();
  return Done(kF, comm, status);
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  constexpr MpiFunction kF = MpiFunction::kGatherv;
  if (InsideKcoll()) {
    return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
  }
  kcoll::Communicator* c = Take(kF, comm);
  if (c == nullptr)
    return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
  EnterKcoll inside;
  const bool at_root = c->rank() == root;
  BlockBuffer recv(at_root ? recvbuf : nullptr, at_root ? recvcounts : nullptr, at_root ? displs : nullptr,
                   at_root ? recvtype : MPI_BYTE, c->size());
  absl::Status status;
  if (!recv.valid()) {
    status = absl::InvalidArgumentError("MPI_Gatherv: a negative recvcount or an invalid recvtype at the root");
  } else if (at_root && sendbuf == MPI_IN_PLACE) {
    char* data = static_cast<char*>(recv.ForUpdate());
    status = c->GatherV(data + recv.ByteDispl(root), recv.ByteCount(root), data, recv.byte_counts(), recv.byte_displs(),
                        DataType::kUint8, root);
  } else {
    ByteBuffer send(sendbuf, sendcount, sendtype);
    status = !send.valid() ? kcoll::drop_in::Undescribed("MPI_Gatherv", "sendcount and sendtype")
                           : c->GatherV(send.ForSend(), send.bytes(), at_root ? recv.ForReceive() : nullptr,
                                        recv.byte_counts(), recv.byte_displs(), DataType::kUint8, root);
  }
  if (status.ok()) recv.Finish();
  return Done(kF, comm, status);
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  constexpr MpiFunction kF = MpiFunction::kScatterv;
  if (InsideKcoll()) {
    return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
  }
  kcoll::Communicator* c = Take(kF, comm);
  if (c == nullptr)
    return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
  EnterKcoll inside;
  const bool at_root = c->rank() == root;
  BlockBuffer send(at_root ? sendbuf : nullptr, at_root ? sendcounts : nullptr, at_root ? displs : nullptr,
                   at_root ? sendtype : MPI_BYTE, c->size());
  absl::Status status;
  if (!send.valid()) {
    status = absl::InvalidArgumentError("MPI_Scatterv: a negative sendcount or an invalid sendtype at the root");
  } else if (at_root && recvbuf == MPI_IN_PLACE) {
    const char* data = static_cast<const char*>(send.ForSend());
    status = c->ScatterV(data, send.byte_counts(), send.byte_displs(), const_cast<char*>(data) + send.ByteDispl(root),
                         send.ByteCount(root), DataType::kUint8, root);
  } else {
    ByteBuffer recv(recvbuf, recvcount, recvtype);
    status = !recv.valid() ? kcoll::drop_in::Undescribed("MPI_Scatterv", "recvcount and recvtype")
                           : c->ScatterV(at_root ? send.ForSend() : nullptr, send.byte_counts(), send.byte_displs(),
                                         recv.ForReceive(), recv.bytes(), DataType::kUint8, root);
    if (status.ok()) recv.Finish();
  }
  return Done(kF, comm, status);
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm) {
  constexpr MpiFunction kF = MpiFunction::kReduceScatter;
  if (InsideKcoll()) return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
  auto reduction = ReductionOf(kF, datatype, op);
  kcoll::Communicator* c = reduction ? Take(kF, comm) : nullptr;
  if (c == nullptr) return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
  EnterKcoll inside;
  std::vector<size_t> counts(static_cast<size_t>(c->size()));
  size_t total = 0;
  for (size_t j = 0; j < counts.size(); ++j) {
    if (recvcounts[j] < 0) {
      return Done(kF, comm,
                  absl::InvalidArgumentError(
                      absl::StrCat("MPI_Reduce_scatter: recvcounts[", j, "] = ", recvcounts[j], " is negative")));
    }
    counts[j] = static_cast<size_t>(recvcounts[j]);
    total += counts[j];
  }
  // MPI's in place leaves the result at recvbuf's start, kcoll's at the rank's own block: the input is a copy.
  std::vector<char> copy;
  if (sendbuf == MPI_IN_PLACE) {
    const size_t bytes = total * kcoll::DataTypeSize(reduction->type);
    copy.assign(static_cast<const char*>(recvbuf), static_cast<const char*>(recvbuf) + bytes);
    sendbuf = copy.data();
  }
  return Done(kF, comm, c->ReduceScatterV(sendbuf, recvbuf, counts.data(), reduction->type, reduction->op));
}

int MPI_Finalize(void) {
  if (InsideKcoll()) return PMPI_Finalize();
  kcoll::drop_in::PrintStatsAtFinalize();
  kcoll::drop_in::ReleaseAll();
  return PMPI_Finalize();
}

}  // extern "C"
