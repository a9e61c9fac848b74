// The MPI nonblocking collectives kcoll takes (nonblocking.h says when): MPI_Iallreduce, MPI_Ireduce, MPI_Iscan,
// MPI_Iexscan, MPI_Ibcast, MPI_Iallgather, MPI_Ialltoall and MPI_Ibarrier, each its blocking form's route and data
// handling (mpi_collectives.cc) with kcoll's nonblocking call, returned as an MPI request. The other nonblocking
// collectives are MPI's own. An argument error found on this rank is returned at once, as the blocking forms do.
#include <mpi.h>

#include <memory>
#include <optional>

#include "absl/status/status.h"
#include "collectives/communicator.h"
#include "mpi_drop_in/byte_buffer.h"
#include "mpi_drop_in/call_route.h"
#include "mpi_drop_in/call_stats.h"
#include "mpi_drop_in/nonblocking.h"
#include "mpi_drop_in/reentry.h"

namespace kcoll::drop_in {
namespace {

// MPI_Iallreduce, MPI_Iscan and MPI_Iexscan: every rank passes (send, recv, count, datatype, op), send ==
// MPI_IN_PLACE meaning recv holds the input; run by `run` (IAllReduce, IScan or IExScan) or forwarded.
using PmpiReduction = int (*)(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Request*);
using KcollReduction = Request (Communicator::*)(const void*, void*, size_t, DataType, ReduceOp, const CallOptions&,
                                                 MemoryKind);
int ElementwiseReduction(MpiFunction function, PmpiReduction forward, KcollReduction run, const void* sendbuf,
                         void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                         MPI_Request* request) {
  if (InsideKcoll()) return forward(sendbuf, recvbuf, count, datatype, op, comm, request);
  auto reduction = NegativeCount(function, count) ? std::nullopt : ReductionOf(function, datatype, op);
  Communicator* c = reduction ? TakeNonblocking(function, comm) : nullptr;
  if (c == nullptr) return forward(sendbuf, recvbuf, count, datatype, op, comm, request);
  EnterKcoll inside;
  const void* send = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  return StartMpiRequest(function, c,
                         (c->*run)(send, recvbuf, static_cast<size_t>(count), reduction->type, reduction->op,
                                   CallOptions(), MemoryKind::kHost),
                         nullptr, request);
}

// MPI_Iallgather and MPI_Ialltoall: bytes from every rank's send buffer to every rank's receive buffer of n blocks of
// the receive count; the send buffer holds one block (allgather) or n (alltoall: `send_every_block`).
using PmpiMovement = int (*)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, MPI_Comm, MPI_Request*);
int Movement(MpiFunction function, PmpiMovement forward, const char* name, bool send_every_block, const void* sendbuf,
             int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
             MPI_Request* request) {
  if (InsideKcoll()) return forward(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
  Communicator* c = NegativeCount(function, recvcount) ? nullptr : TakeNonblocking(function, comm);
  if (c == nullptr) return forward(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
  EnterKcoll inside;
  const int n = c->size();
  auto recv = std::make_shared<ByteBuffer>(recvbuf, static_cast<long long>(recvcount) * n, recvtype);
  if (!recv->valid()) return Done(function, comm, Undescribed(name, "recvcount and recvtype"));
  const size_t block = recv->bytes() / static_cast<size_t>(n);
  const Collective collective = send_every_block ? Collective::kAllToAll : Collective::kAllGather;
  std::shared_ptr<ByteBuffer> send;
  Request started;
  if (sendbuf == MPI_IN_PLACE) {
    char* data = static_cast<char*>(recv->ForUpdate());
    const char* own = send_every_block ? data : data + static_cast<size_t>(c->rank()) * block;
    started = c->ICall(collective, own, data, block, DataType::kUint8, ReduceOp::kSum, 0);
  } else {
    send =
        std::make_shared<ByteBuffer>(sendbuf, static_cast<long long>(sendcount) * (send_every_block ? n : 1), sendtype);
    if (!send->valid()) return Done(function, comm, Undescribed(name, "sendcount and sendtype"));
    const size_t send_block = send->bytes() / (send_every_block ? static_cast<size_t>(n) : 1);
    if (send_block != block) return Done(function, comm, SignatureMismatch(name, send_block, block));
    started = c->ICall(collective, send->ForSend(), recv->ForReceive(), block, DataType::kUint8, ReduceOp::kSum, 0);
  }
  // The send buffer's packed copy, if any, is kcoll's until the call completed.
  return StartMpiRequest(
      function, c, std::move(started),
      [recv, send] {
        recv->Finish();
        return absl::OkStatus();
      },
      request);
}

// MPI_Ireduce: the result at the root only (MPI_IN_PLACE there: recv holds the root's input).
int Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
            MPI_Request* request) {
  constexpr MpiFunction kF = MpiFunction::kIreduce;
  if (InsideKcoll()) return PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request);
  auto reduction = NegativeCount(kF, count) ? std::nullopt : ReductionOf(kF, datatype, op);
  Communicator* c = reduction ? TakeNonblocking(kF, comm) : nullptr;
  if (c == nullptr) return PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request);
  EnterKcoll inside;
  const bool at_root = c->rank() == root;
  const void* send = at_root && sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  return StartMpiRequest(
      kF, c,
      c->IReduce(send, at_root ? recvbuf : nullptr, static_cast<size_t>(count), reduction->type, reduction->op, root),
      nullptr, request);
}

// MPI_Ibcast: the root's bytes (packed there if its datatype is not contiguous) into every rank's buffer.
int Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request* request) {
  constexpr MpiFunction kF = MpiFunction::kIbcast;
  if (InsideKcoll()) return PMPI_Ibcast(buffer, count, datatype, root, comm, request);
  Communicator* c = NegativeCount(kF, count) ? nullptr : TakeNonblocking(kF, comm);
  if (c == nullptr) return PMPI_Ibcast(buffer, count, datatype, root, comm, request);
  EnterKcoll inside;
  auto bytes = std::make_shared<ByteBuffer>(buffer, count, datatype);
  if (!bytes->valid()) return Done(kF, comm, Undescribed("MPI_Ibcast", "count and datatype"));
  void* data = c->rank() == root ? const_cast<void*>(bytes->ForSend()) : bytes->ForReceive();
  return StartMpiRequest(
      kF, c, c->IBroadcast(data, data, bytes->bytes(), DataType::kUint8, root),
      [bytes] {
        bytes->Finish();
        return absl::OkStatus();
      },
      request);
}

// MPI_Ibarrier.
int Ibarrier(MPI_Comm comm, MPI_Request* request) {
  constexpr MpiFunction kF = MpiFunction::kIbarrier;
  if (InsideKcoll()) return PMPI_Ibarrier(comm, request);
  Communicator* c = TakeNonblocking(kF, comm);
  if (c == nullptr) return PMPI_Ibarrier(comm, request);
  EnterKcoll inside;
  return StartMpiRequest(kF, c, c->IBarrier(), nullptr, request);
}

}  // namespace
}  // namespace kcoll::drop_in

using kcoll::drop_in::MpiFunction;

extern "C" {

int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Request* request) {
  return kcoll::drop_in::ElementwiseReduction(MpiFunction::kIallreduce, PMPI_Iallreduce,
                                              &kcoll::Communicator::IAllReduce, sendbuf, recvbuf, count, datatype, op,
                                              comm, request);
}

int MPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
              MPI_Request* request) {
  return kcoll::drop_in::ElementwiseReduction(MpiFunction::kIscan, PMPI_Iscan, &kcoll::Communicator::IScan, sendbuf,
                                              recvbuf, count, datatype, op, comm, request);
}

int MPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                MPI_Request* request) {
  return kcoll::drop_in::ElementwiseReduction(MpiFunction::kIexscan, PMPI_Iexscan, &kcoll::Communicator::IExScan,
                                              sendbuf, recvbuf, count, datatype, op, comm, request);
}

int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request* request) {
  return kcoll::drop_in::Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request);
}

int MPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request* request) {
  return kcoll::drop_in::Ibcast(buffer, count, datatype, root, comm, request);
}

int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return kcoll::drop_in::Movement(MpiFunction::kIallgather, PMPI_Iallgather, "MPI_Iallgather",
                                  /*send_every_block=*/false, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                  recvtype, comm, request);
}

int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return kcoll::drop_in::Movement(MpiFunction::kIalltoall, PMPI_Ialltoall, "MPI_Ialltoall", /*send_every_block=*/true,
                                  sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) { return kcoll::drop_in::Ibarrier(comm, request); }

}  // extern "C"
