// The MPI nonblocking collectives kcoll takes (nonblocking.h says when): the nonblocking form of every collective
// mpi_collectives.cc defines, from MPI_Iallreduce to MPI_Ireduce_scatter, each its blocking form's route and data
// handling (planned_call.h for those whose buffers may need packing) with kcoll's nonblocking call, returned as an MPI
// request. An argument error found on this rank is returned at once, as the blocking forms do.
#include <mpi.h>

#include <memory>
#include <optional>

#include "absl/status/status.h"
#include "collectives/communicator.h"
#include "mpi_drop_in/call_route.h"
#include "mpi_drop_in/call_stats.h"
#include "mpi_drop_in/host_mirror.h"
#include "mpi_drop_in/nonblocking.h"
#include "mpi_drop_in/planned_call.h"
#include "mpi_drop_in/reentry.h"

namespace kcoll::drop_in {
namespace {

// RunOnHostMemory's nonblocking form: `start(send, recv)`, a reduction's kcoll nonblocking call, made the MPI request
// *request, on the buffers themselves or on their mirrors, which the request holds until it completes and then copies
// the result back from.
template <typename Start>
int StartOnHostMemory(MpiFunction function, MPI_Comm comm, Communicator* c, const void* send, void* recv, size_t bytes,
                      Start start, MPI_Request* request) {
  if (!DeviceMemoryPossible()) return StartMpiRequest(function, c, start(send, recv), nullptr, request);
  auto host = std::make_shared<ReductionMirror>();
  const absl::Status staged = host->Mirror(send, recv, bytes, bytes);
  if (!staged.ok()) return Done(function, comm, staged);
  return StartMpiRequest(
      function, c, start(host->send_host(), host->recv_host()), [host] { return host->recv.CopyBack(); }, request);
}

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
  return StartOnHostMemory(
      function, comm, c, send, recvbuf, static_cast<size_t>(count) * DataTypeSize(reduction->type),
      [&](const void* s, void* r) {
        return (c->*run)(s, r, static_cast<size_t>(count), reduction->type, reduction->op, CallOptions(),
                         MemoryKind::kHost);
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
  void* recv = at_root ? recvbuf : nullptr;
  return StartOnHostMemory(
      kF, comm, c, send, recv, static_cast<size_t>(count) * DataTypeSize(reduction->type),
      [&](const void* s, void* r) {
        return c->IReduce(s, r, static_cast<size_t>(count), reduction->type, reduction->op, root);
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

// The nonblocking forms of the calls planned_call.h plans: `plan` reads the arguments once kcoll takes the call.
// `count`: the count every rank passes alike, forwarded when negative (0 for the calls whose blocking forms decide on
// the communicator alone).
template <typename Forward, typename Plan>
int Planned(MpiFunction function, MPI_Comm comm, int count, Forward forward, Plan plan, MPI_Request* request) {
  if (InsideKcoll()) return forward();
  Communicator* c = NegativeCount(function, count) ? nullptr : TakeNonblocking(function, comm);
  if (c == nullptr) return forward();
  EnterKcoll inside;
  return StartPlanned(function, comm, c, plan(*c), request);
}

// MPI_Ireduce_scatter_block and MPI_Ireduce_scatter: on kcoll's reduction of the datatype and op.
template <typename Forward, typename Plan>
int PlannedReduction(MpiFunction function, MPI_Comm comm, int count, MPI_Datatype datatype, MPI_Op op, Forward forward,
                     Plan plan, MPI_Request* request) {
  if (InsideKcoll()) return forward();
  auto reduction = NegativeCount(function, count) ? std::nullopt : ReductionOf(function, datatype, op);
  Communicator* c = reduction ? TakeNonblocking(function, comm) : nullptr;
  if (c == nullptr) return forward();
  EnterKcoll inside;
  return StartPlanned(function, comm, c, plan(*c, *reduction), request);
}

}  // namespace
}  // namespace kcoll::drop_in

using kcoll::Communicator;
using kcoll::drop_in::MpiFunction;
using kcoll::drop_in::PlanAllgatherv;
using kcoll::drop_in::PlanAlltoallv;
using kcoll::drop_in::PlanBcast;
using kcoll::drop_in::PlanGather;
using kcoll::drop_in::PlanGatherv;
using kcoll::drop_in::PlanMovement;
using kcoll::drop_in::Planned;
using kcoll::drop_in::PlannedReduction;
using kcoll::drop_in::PlanReduceScatter;
using kcoll::drop_in::PlanReduceScatterBlock;
using kcoll::drop_in::PlanScatter;
using kcoll::drop_in::PlanScatterv;
using kcoll::drop_in::Reduction;

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
  constexpr MpiFunction kF = MpiFunction::kIbcast;
  return Planned(
      kF, comm, count, [&] { return PMPI_Ibcast(buffer, count, datatype, root, comm, request); },
      [&](const Communicator& c) { return PlanBcast(kF, c, buffer, count, datatype, root); }, request);
}

int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  constexpr MpiFunction kF = MpiFunction::kIallgather;
  return Planned(
      kF, comm, recvcount,
      [&] { return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request); },
      [&](const Communicator& c) {
        return PlanMovement(kF, c, /*send_every_block=*/false, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                            recvtype);
      },
      request);
}

int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  constexpr MpiFunction kF = MpiFunction::kIalltoall;
  return Planned(
      kF, comm, recvcount,
      [&] { return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request); },
      [&](const Communicator& c) {
        return PlanMovement(kF, c, /*send_every_block=*/true, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                            recvtype);
      },
      request);
}

int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  constexpr MpiFunction kF = MpiFunction::kIgather;
  return Planned(
      kF, comm, /*count=*/0,
      [&] { return PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request); },
      [&](const Communicator& c) {
        return PlanGather(kF, c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
      },
      request);
}

int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  constexpr MpiFunction kF = MpiFunction::kIscatter;
  return Planned(
      kF, comm, /*count=*/0,
      [&] { return PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request); },
      [&](const Communicator& c) {
        return PlanScatter(kF, c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
      },
      request);
}

int MPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                    const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  constexpr MpiFunction kF = MpiFunction::kIallgatherv;
  return Planned(
      kF, comm, /*count=*/0,
      [&] {
        return PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request);
      },
      [&](const Communicator& c) {
        return PlanAllgatherv(kF, c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype);
      },
      request);
}

int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request* request) {
  constexpr MpiFunction kF = MpiFunction::kIalltoallv;
  return Planned(
      kF, comm, /*count=*/0,
      [&] {
        return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                               request);
      },
      [&](const Communicator& c) {
        return PlanAlltoallv(kF, c, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
      },
      request);
}

int MPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                 const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  constexpr MpiFunction kF = MpiFunction::kIgatherv;
  return Planned(
      kF, comm, /*count=*/0,
      [&] {
        return PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, request);
      },
      [&](const Communicator& c) {
        return PlanGatherv(kF, c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root);
      },
      request);
}

int MPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  constexpr MpiFunction kF = MpiFunction::kIscatterv;
  return Planned(
      kF, comm, /*count=*/0,
      [&] {
        return PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
      },
      [&](const Communicator& c) {
        return PlanScatterv(kF, c, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root);
      },
      request);
}

int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm, MPI_Request* request) {
  constexpr MpiFunction kF = MpiFunction::kIreduceScatterBlock;
  return PlannedReduction(
      kF, comm, recvcount, datatype, op,
      [&] { return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, request); },
      [&](const Communicator& c, const Reduction& r) {
        return PlanReduceScatterBlock(kF, c, sendbuf, recvbuf, recvcount, r.type, r.op);
      },
      request);
}

int MPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm, MPI_Request* request) {
  constexpr MpiFunction kF = MpiFunction::kIreduceScatter;
  return PlannedReduction(
      kF, comm, /*count=*/0, datatype, op,
      [&] { return PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, request); },
      [&](const Communicator& c, const Reduction& r) {
        return PlanReduceScatter(kF, c, sendbuf, recvbuf, recvcounts, r.type, r.op);
      },
      request);
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) { return kcoll::drop_in::Ibarrier(comm, request); }

}  // extern "C"
