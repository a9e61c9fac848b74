// The MPI collectives, defined over kcoll: an application linked with (or preloading) libkcoll_mpi.so calls these in
// place of its MPI's. Each call either runs on kcoll or is forwarded to the MPI underneath through its profiling
// name (PMPI_*), decided only from what MPI requires every rank to pass alike (the communicator, the reduction's
// datatype and op, the count's sign), so that no rank waits in kcoll while another waits in MPI. What may differ
// between ranks (a derived datatype of the same signature, MPI_IN_PLACE at the root only, device memory) is handled on
// the rank (byte_buffer.h, planned_call.h, host_mirror.h); the one route chosen by agreement, the device route, is
// agreed on by every rank first (device_route.h). Data movement runs on bytes; reductions on kcoll's type of the MPI
// datatype.
#include <mpi.h>

#include <optional>

#include "absl/status/status.h"
#include "collectives/communicator.h"
#include "mpi_drop_in/call_route.h"
#include "mpi_drop_in/call_stats.h"
#include "mpi_drop_in/comm_registry.h"
#include "mpi_drop_in/device_route.h"
#include "mpi_drop_in/host_mirror.h"
#include "mpi_drop_in/planned_call.h"
#include "mpi_drop_in/reentry.h"

namespace kcoll::drop_in {
namespace {

// The reductions whose every rank passes (send, recv, count, datatype, op), send == MPI_IN_PLACE meaning recv holds
// the input: MPI_Allreduce, MPI_Scan and MPI_Exscan, run by `run` (AllReduce, Scan or ExScan) or forwarded.
using PmpiReduction = int (*)(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm);
using KcollReduction = absl::Status (Communicator::*)(const void*, void*, size_t, DataType, ReduceOp,
                                                      const CallOptions&, MemoryKind);
// `device_route`: the call may take the device route (MPI_Allreduce's).
int ElementwiseReduction(MpiFunction function, PmpiReduction forward, KcollReduction run, bool device_route,
                         const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm) {
  if (InsideKcoll()) return forward(sendbuf, recvbuf, count, datatype, op, comm);
  Reduction reduction;
  Communicator* c = NegativeCount(function, count) ? nullptr : TakeReduction(function, comm, datatype, op, &reduction);
  if (c == nullptr) return forward(sendbuf, recvbuf, count, datatype, op, comm);
  EnterKcoll inside;
  const void* send = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  if (device_route && DeviceRouteOn()) {
    if (Communicator* d = AgreeOnDeviceRoute(comm, c, BuffersOnDevice({send, recvbuf}))) {
      CountOnDevice(function);
      return Done(function, comm,
                  (d->*run)(send, recvbuf, static_cast<size_t>(count), reduction.type, reduction.op, CallOptions(),
                            MemoryKind::kDevice));
    }
  }
  return Done(function, comm,
              RunOnHostMemory(send, recvbuf, static_cast<size_t>(count) * DataTypeSize(reduction.type),
                              [&](const void* s, void* r) {
                                return (c->*run)(s, r, static_cast<size_t>(count), reduction.type, reduction.op,
                                                 CallOptions(), MemoryKind::kHost);
                              }));
}

}  // namespace
}  // namespace kcoll::drop_in

using kcoll::drop_in::AgreeOnDeviceRoute;
using kcoll::drop_in::BuffersOnDevice;
using kcoll::drop_in::ContiguousBytes;
using kcoll::drop_in::Done;
using kcoll::drop_in::EnterKcoll;
using kcoll::drop_in::InsideKcoll;
using kcoll::drop_in::MpiFunction;
using kcoll::drop_in::NegativeCount;
using kcoll::drop_in::PlanAllgatherv;
using kcoll::drop_in::PlanAlltoallv;
using kcoll::drop_in::PlanBcast;
using kcoll::drop_in::PlanGather;
using kcoll::drop_in::PlanGatherv;
using kcoll::drop_in::PlanMovement;
using kcoll::drop_in::PlanReduceScatter;
using kcoll::drop_in::PlanReduceScatterBlock;
using kcoll::drop_in::PlanScatter;
using kcoll::drop_in::PlanScatterv;
using kcoll::drop_in::Reduction;
using kcoll::drop_in::RunPlanned;
using kcoll::drop_in::Take;
using kcoll::drop_in::TakeReduction;

extern "C" {

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return kcoll::drop_in::ElementwiseReduction(MpiFunction::kAllreduce, PMPI_Allreduce, &kcoll::Communicator::AllReduce,
                                              /*device_route=*/true, sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm) {
  constexpr MpiFunction kF = MpiFunction::kReduce;
  if (InsideKcoll()) return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
  Reduction reduction;
  kcoll::Communicator* c = NegativeCount(kF, count) ? nullptr : TakeReduction(kF, comm, datatype, op, &reduction);
  if (c == nullptr) return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
  EnterKcoll inside;
  const bool at_root = c->rank() == root;
  const void* send = at_root && sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  void* recv = at_root ? recvbuf : nullptr;
  if (kcoll::drop_in::DeviceRouteOn()) {
    if (kcoll::Communicator* d = AgreeOnDeviceRoute(comm, c, BuffersOnDevice({send, recv}))) {
      kcoll::drop_in::CountOnDevice(kF);
      return Done(kF, comm,
                  d->Reduce(send, recv, static_cast<size_t>(count), reduction.type, reduction.op, root, {},
                            kcoll::MemoryKind::kDevice));
    }
  }
  return Done(
      kF, comm,
      kcoll::drop_in::RunOnHostMemory(
          send, recv, static_cast<size_t>(count) * kcoll::DataTypeSize(reduction.type), [&](const void* s, void* r) {
            return c->Reduce(s, r, static_cast<size_t>(count), reduction.type, reduction.op, root);
          }));
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return kcoll::drop_in::ElementwiseReduction(MpiFunction::kScan, PMPI_Scan, &kcoll::Communicator::Scan,
                                              /*device_route=*/false, sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return kcoll::drop_in::ElementwiseReduction(MpiFunction::kExscan, PMPI_Exscan, &kcoll::Communicator::ExScan,
                                              /*device_route=*/false, sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm) {
  constexpr MpiFunction kF = MpiFunction::kReduceScatterBlock;
  if (InsideKcoll()) return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
  Reduction reduction;
  kcoll::Communicator* c = NegativeCount(kF, recvcount) ? nullptr : TakeReduction(kF, comm, datatype, op, &reduction);
  if (c == nullptr) return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
  EnterKcoll inside;
  if (kcoll::drop_in::DeviceRouteOn()) {
    // In place MPI leaves the result at the front of the buffer, kcoll at the rank's block: the host route moves it.
    const bool mine = sendbuf != MPI_IN_PLACE && BuffersOnDevice({sendbuf, recvbuf});
    if (kcoll::Communicator* d = AgreeOnDeviceRoute(comm, c, mine)) {
      kcoll::drop_in::CountOnDevice(kF);
      return Done(kF, comm,
                  d->ReduceScatter(sendbuf, recvbuf, static_cast<size_t>(recvcount), reduction.type, reduction.op, {},
                                   kcoll::MemoryKind::kDevice));
    }
  }
  return RunPlanned(kF, comm, c,
                    PlanReduceScatterBlock(kF, *c, sendbuf, recvbuf, recvcount, reduction.type, reduction.op));
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  constexpr MpiFunction kF = MpiFunction::kBcast;
  if (InsideKcoll()) return PMPI_Bcast(buffer, count, datatype, root, comm);
  kcoll::Communicator* c = NegativeCount(kF, count) ? nullptr : Take(kF, comm);
  if (c == nullptr) return PMPI_Bcast(buffer, count, datatype, root, comm);
  EnterKcoll inside;
  if (kcoll::drop_in::DeviceRouteOn()) {
    const std::optional<size_t> bytes = ContiguousBytes(count, datatype);
    if (kcoll::Communicator* d = AgreeOnDeviceRoute(comm, c, bytes.has_value() && BuffersOnDevice({buffer}))) {
      kcoll::drop_in::CountOnDevice(kF);
      return Done(kF, comm,
                  d->Broadcast(buffer, buffer, *bytes, kcoll::DataType::kUint8, root, {}, kcoll::MemoryKind::kDevice));
    }
  }
  return RunPlanned(kF, comm, c, PlanBcast(kF, *c, buffer, count, datatype, root));
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  constexpr MpiFunction kF = MpiFunction::kAllgather;
  if (InsideKcoll()) return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  kcoll::Communicator* c = NegativeCount(kF, recvcount) ? nullptr : Take(kF, comm);
  if (c == nullptr) return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  EnterKcoll inside;
  if (kcoll::drop_in::DeviceRouteOn()) {
    const bool in_place = sendbuf == MPI_IN_PLACE;
    const std::optional<size_t> block = ContiguousBytes(recvcount, recvtype);
    const std::optional<size_t> sent = in_place ? block : ContiguousBytes(sendcount, sendtype);
    const bool mine = block.has_value() && sent == block && BuffersOnDevice({in_place ? nullptr : sendbuf, recvbuf});
    if (kcoll::Communicator* d = AgreeOnDeviceRoute(comm, c, mine)) {
      kcoll::drop_in::CountOnDevice(kF);
      // kcoll's in-place form: the rank's own block of recv is its send.
      const void* send = in_place ? kcoll::drop_in::At(recvbuf, static_cast<size_t>(c->rank()) * *block) : sendbuf;
      return Done(kF, comm,
                  d->AllGather(send, recvbuf, *block, kcoll::DataType::kUint8, {}, kcoll::MemoryKind::kDevice));
    }
  }
  return RunPlanned(
      kF, comm, c,
      PlanMovement(kF, *c, /*send_every_block=*/false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype));
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm) {
  constexpr MpiFunction kF = MpiFunction::kAlltoall;
  if (InsideKcoll()) return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  kcoll::Communicator* c = NegativeCount(kF, recvcount) ? nullptr : Take(kF, comm);
  if (c == nullptr) return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  EnterKcoll inside;
  if (kcoll::drop_in::DeviceRouteOn()) {
    const std::optional<size_t> block = ContiguousBytes(recvcount, recvtype);
    const bool mine = sendbuf != MPI_IN_PLACE && block.has_value() && ContiguousBytes(sendcount, sendtype) == block &&
                      BuffersOnDevice({sendbuf, recvbuf});
    if (kcoll::Communicator* d = AgreeOnDeviceRoute(comm, c, mine)) {
      kcoll::drop_in::CountOnDevice(kF);
      return Done(kF, comm,
                  d->AllToAll(sendbuf, recvbuf, *block, kcoll::DataType::kUint8, {}, kcoll::MemoryKind::kDevice));
    }
  }
  return RunPlanned(
      kF, comm, c,
      PlanMovement(kF, *c, /*send_every_block=*/true, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype));
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) {
  constexpr MpiFunction kF = MpiFunction::kGather;
  if (InsideKcoll()) return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  // The counts differ in meaning between root and the others: only the communicator decides.
  kcoll::Communicator* c = Take(kF, comm);
  if (c == nullptr) return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  EnterKcoll inside;
  return RunPlanned(kF, comm, c, PlanGather(kF, *c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root));
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  constexpr MpiFunction kF = MpiFunction::kScatter;
  if (InsideKcoll()) return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  kcoll::Communicator* c = Take(kF, comm);
  if (c == nullptr) return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  EnterKcoll inside;
  return RunPlanned(kF, comm, c, PlanScatter(kF, *c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root));
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
  return RunPlanned(kF, comm, c,
                    PlanAllgatherv(kF, *c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype));
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
  return RunPlanned(
      kF, comm, c,
      PlanAlltoallv(kF, *c, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype));
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  constexpr MpiFunction kF = MpiFunction::kGatherv;
  if (InsideKcoll()) {
    return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
  }
  kcoll::Communicator* c = Take(kF, comm);
  if (c == nullptr) {
    return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
  }
  EnterKcoll inside;
  return RunPlanned(kF, comm, c,
                    PlanGatherv(kF, *c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root));
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  constexpr MpiFunction kF = MpiFunction::kScatterv;
  if (InsideKcoll()) {
    return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
  }
  kcoll::Communicator* c = Take(kF, comm);
  if (c == nullptr) {
    return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
  }
  EnterKcoll inside;
  return RunPlanned(kF, comm, c,
                    PlanScatterv(kF, *c, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root));
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm) {
  constexpr MpiFunction kF = MpiFunction::kReduceScatter;
  if (InsideKcoll()) return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
  Reduction reduction;
  kcoll::Communicator* c = TakeReduction(kF, comm, datatype, op, &reduction);
  if (c == nullptr) return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
  EnterKcoll inside;
  return RunPlanned(kF, comm, c, PlanReduceScatter(kF, *c, sendbuf, recvbuf, recvcounts, reduction.type, reduction.op));
}

int MPI_Finalize(void) {
  if (InsideKcoll()) return PMPI_Finalize();
  kcoll::drop_in::PrintStatsAtFinalize();
  kcoll::drop_in::ReleaseAll();
  return PMPI_Finalize();
}

}  // extern "C"
