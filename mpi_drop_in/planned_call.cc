#include "mpi_drop_in/planned_call.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "mpi_drop_in/call_route.h"
#include "mpi_drop_in/nonblocking.h"

namespace kcoll::drop_in {
namespace {

PlannedCall Failed(absl::Status error) {
  PlannedCall p;
  p.error = std::move(error);
  return p;
}

const char* Name(MpiFunction f) { return MpiFunctionName(f); }

}  // namespace

absl::Status PlannedCall::Ready() const {
  if (!error.ok()) return error;
  for (const ByteBuffer* b : {send ? &*send : nullptr, recv ? &*recv : nullptr}) {
    if (b != nullptr && !b->status().ok()) return b->status();
  }
  for (const BlockBuffer* b : {send_blocks ? &*send_blocks : nullptr, recv_blocks ? &*recv_blocks : nullptr}) {
    if (b != nullptr && !b->status().ok()) return b->status();
  }
  return absl::OkStatus();
}

absl::Status PlannedCall::Finish() {
  if (move_bytes > 0 && move_from != move_to) std::memmove(move_to, move_from, move_bytes);
  absl::Status status = recv ? recv->Finish() : absl::OkStatus();
  if (recv_blocks) status.Update(recv_blocks->Finish());
  status.Update(reduce.recv.CopyBack());
  return status;
}

PlannedCall PlanBcast(MpiFunction f, const Communicator& c, void* buffer, int count, MPI_Datatype datatype, int root) {
  PlannedCall p;
  p.recv.emplace(buffer, count, datatype);
  if (!p.recv->valid()) return Failed(Undescribed(Name(f), "count and datatype"));
  void* data = c.rank() == root ? const_cast<void*>(p.recv->ForSend()) : p.recv->ForReceive();
  p.call = CollectiveCall::Broadcast(data, data, p.recv->bytes(), DataType::kUint8, root);
  return p;
}

PlannedCall PlanMovement(MpiFunction f, const Communicator& c, bool send_every_block, const void* sendbuf,
                         int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype) {
  const int n = c.size();
  PlannedCall p;
  p.recv.emplace(recvbuf, static_cast<long long>(recvcount) * n, recvtype);
  if (!p.recv->valid()) return Failed(Undescribed(Name(f), "recvcount and recvtype"));
  const size_t block = p.recv->bytes() / static_cast<size_t>(n);
  auto call = send_every_block ? &CollectiveCall::AllToAll : &CollectiveCall::AllGather;
  if (sendbuf == MPI_IN_PLACE) {
    char* data = static_cast<char*>(p.recv->ForUpdate());
    const char* own = send_every_block ? data : data + static_cast<size_t>(c.rank()) * block;
    p.call = call(own, data, block, DataType::kUint8, CallOptions(), MemoryKind::kHost);
    return p;
  }
  p.send.emplace(sendbuf, static_cast<long long>(sendcount) * (send_every_block ? n : 1), sendtype);
  if (!p.send->valid()) return Failed(Undescribed(Name(f), "sendcount and sendtype"));
  const size_t send_block = p.send->bytes() / (send_every_block ? static_cast<size_t>(n) : 1);
  if (send_block != block) return Failed(SignatureMismatch(Name(f), send_block, block));
  p.call = call(p.send->ForSend(), p.recv->ForReceive(), block, DataType::kUint8, CallOptions(), MemoryKind::kHost);
  return p;
}

PlannedCall PlanGather(MpiFunction f, const Communicator& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                       void* recvbuf, int recvcount, MPI_Datatype recvtype, int root) {
  const bool at_root = c.rank() == root;
  const size_t n = static_cast<size_t>(c.size());
  PlannedCall p;
  p.recv.emplace(at_root ? recvbuf : nullptr, at_root ? static_cast<long long>(recvcount) * c.size() : 0,
                 at_root ? recvtype : MPI_BYTE);
  if (!p.recv->valid()) return Failed(Undescribed(Name(f), "the root's recvcount and recvtype"));
  if (at_root && sendbuf == MPI_IN_PLACE) {
    const size_t block = p.recv->bytes() / n;
    char* data = static_cast<char*>(p.recv->ForUpdate());
    p.call = CollectiveCall::Gather(data + static_cast<size_t>(root) * block, data, block, DataType::kUint8, root);
    return p;
  }
  p.send.emplace(sendbuf, sendcount, sendtype);
  if (!p.send->valid()) return Failed(Undescribed(Name(f), "sendcount and sendtype"));
  if (at_root && p.send->bytes() != p.recv->bytes() / n) {
    return Failed(SignatureMismatch(Name(f), p.send->bytes(), p.recv->bytes() / n));
  }
  p.call = CollectiveCall::Gather(p.send->ForSend(), at_root ? p.recv->ForReceive() : nullptr, p.send->bytes(),
                                  DataType::kUint8, root);
  return p;
}

PlannedCall PlanScatter(MpiFunction f, const Communicator& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                        void* recvbuf, int recvcount, MPI_Datatype recvtype, int root) {
  const bool at_root = c.rank() == root;
  const size_t n = static_cast<size_t>(c.size());
  PlannedCall p;
  p.send.emplace(at_root ? sendbuf : nullptr, at_root ? static_cast<long long>(sendcount) * c.size() : 0,
                 at_root ? sendtype : MPI_BYTE);
  if (!p.send->valid()) return Failed(Undescribed(Name(f), "the root's sendcount and sendtype"));
  if (at_root && recvbuf == MPI_IN_PLACE) {
    // The root's own block stays where it is; kcoll's copy of it onto itself (or into the packed copy) is harmless.
    const size_t block = p.send->bytes() / n;
    const char* data = static_cast<const char*>(p.send->ForSend());
    p.call = CollectiveCall::Scatter(data, const_cast<char*>(data) + static_cast<size_t>(root) * block, block,
                                     DataType::kUint8, root);
    return p;
  }
  p.recv.emplace(recvbuf, recvcount, recvtype);
  if (!p.recv->valid()) return Failed(Undescribed(Name(f), "recvcount and recvtype"));
  if (at_root && p.recv->bytes() != p.send->bytes() / n) {
    return Failed(SignatureMismatch(Name(f), p.send->bytes() / n, p.recv->bytes()));
  }
  p.call = CollectiveCall::Scatter(at_root ? p.send->ForSend() : nullptr, p.recv->ForReceive(), p.recv->bytes(),
                                   DataType::kUint8, root);
  return p;
}

PlannedCall PlanAllgatherv(MpiFunction f, const Communicator& c, const void* sendbuf, int sendcount,
                           MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[],
                           MPI_Datatype recvtype) {
  const int rank = c.rank();
  PlannedCall p;
  BlockBuffer& recv = p.recv_blocks.emplace(recvbuf, recvcounts, displs, recvtype, c.size());
  if (!recv.valid()) {
    return Failed(absl::InvalidArgumentError(absl::StrCat(Name(f), ": a negative recvcount or an invalid recvtype")));
  }
  if (sendbuf == MPI_IN_PLACE) {
    char* data = static_cast<char*>(recv.ForUpdate());
    p.call = CollectiveCall::AllGatherV(data + recv.ByteDispl(rank), recv.ByteCount(rank), data, recv.byte_counts(),
                                        recv.byte_displs(), DataType::kUint8);
    return p;
  }
  p.send.emplace(sendbuf, sendcount, sendtype);
  if (!p.send->valid()) return Failed(Undescribed(Name(f), "sendcount and sendtype"));
  p.call = CollectiveCall::AllGatherV(p.send->ForSend(), p.send->bytes(), recv.ForReceive(), recv.byte_counts(),
                                      recv.byte_displs(), DataType::kUint8);
  return p;
}

PlannedCall PlanAlltoallv(MpiFunction f, const Communicator& c, const void* sendbuf, const int sendcounts[],
                          const int sdispls[], MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                          const int rdispls[], MPI_Datatype recvtype) {
  PlannedCall p;
  BlockBuffer& recv = p.recv_blocks.emplace(recvbuf, recvcounts, rdispls, recvtype, c.size());
  if (!recv.valid()) {
    return Failed(absl::InvalidArgumentError(absl::StrCat(Name(f), ": a negative recvcount or an invalid recvtype")));
  }
  if (sendbuf == MPI_IN_PLACE) {
    // kcoll's AllToAllV has no in-place form: what is sent is a copy of the receive blocks.
    char* blocks = static_cast<char*>(recv.ForUpdate());
    size_t end = 0;
    for (int j = 0; j < c.size(); ++j) end = std::max(end, recv.ByteDispl(j) + recv.ByteCount(j));
    p.sent_copy.assign(blocks, blocks + end);
    p.call = CollectiveCall::AllToAllV(p.sent_copy.data(), recv.byte_counts(), recv.byte_displs(), blocks,
                                       recv.byte_counts(), recv.byte_displs(), DataType::kUint8);
    return p;
  }
  BlockBuffer& send = p.send_blocks.emplace(sendbuf, sendcounts, sdispls, sendtype, c.size());
  if (!send.valid()) {
    return Failed(absl::InvalidArgumentError(absl::StrCat(Name(f), ": a negative sendcount or an invalid sendtype")));
  }
  p.call = CollectiveCall::AllToAllV(send.ForSend(), send.byte_counts(), send.byte_displs(), recv.ForReceive(),
                                     recv.byte_counts(), recv.byte_displs(), DataType::kUint8);
  return p;
}

PlannedCall PlanGatherv(MpiFunction f, const Communicator& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                        void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root) {
  const bool at_root = c.rank() == root;
  PlannedCall p;
  BlockBuffer& recv = p.recv_blocks.emplace(at_root ? recvbuf : nullptr, at_root ? recvcounts : nullptr,
                                            at_root ? displs : nullptr, at_root ? recvtype : MPI_BYTE, c.size());
  if (!recv.valid()) {
    return Failed(
        absl::InvalidArgumentError(absl::StrCat(Name(f), ": a negative recvcount or an invalid recvtype at the root")));
  }
  if (at_root && sendbuf == MPI_IN_PLACE) {
    char* data = static_cast<char*>(recv.ForUpdate());
    p.call = CollectiveCall::GatherV(data + recv.ByteDispl(root), recv.ByteCount(root), data, recv.byte_counts(),
                                     recv.byte_displs(), DataType::kUint8, root);
    return p;
  }
  p.send.emplace(sendbuf, sendcount, sendtype);
  if (!p.send->valid()) return Failed(Undescribed(Name(f), "sendcount and sendtype"));
  p.call = CollectiveCall::GatherV(p.send->ForSend(), p.send->bytes(), at_root ? recv.ForReceive() : nullptr,
                                   recv.byte_counts(), recv.byte_displs(), DataType::kUint8, root);
  return p;
}

PlannedCall PlanScatterv(MpiFunction f, const Communicator& c, const void* sendbuf, const int sendcounts[],
                         const int displs[], MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                         int root) {
  const bool at_root = c.rank() == root;
  PlannedCall p;
  BlockBuffer& send = p.send_blocks.emplace(at_root ? sendbuf : nullptr, at_root ? sendcounts : nullptr,
                                            at_root ? displs : nullptr, at_root ? sendtype : MPI_BYTE, c.size());
  if (!send.valid()) {
    return Failed(
        absl::InvalidArgumentError(absl::StrCat(Name(f), ": a negative sendcount or an invalid sendtype at the root")));
  }
  if (at_root && recvbuf == MPI_IN_PLACE) {
    const char* data = static_cast<const char*>(send.ForSend());
    p.call = CollectiveCall::ScatterV(data, send.byte_counts(), send.byte_displs(),
                                      const_cast<char*>(data) + send.ByteDispl(root), send.ByteCount(root),
                                      DataType::kUint8, root);
    return p;
  }
  p.recv.emplace(recvbuf, recvcount, recvtype);
  if (!p.recv->valid()) return Failed(Undescribed(Name(f), "recvcount and recvtype"));
  p.call = CollectiveCall::ScatterV(at_root ? send.ForSend() : nullptr, send.byte_counts(), send.byte_displs(),
                                    p.recv->ForReceive(), p.recv->bytes(), DataType::kUint8, root);
  return p;
}

PlannedCall PlanReduceScatterBlock(MpiFunction f, const Communicator& c, const void* sendbuf, void* recvbuf,
                                   int recvcount, DataType type, ReduceOp op) {
  (void)f;
  PlannedCall p;
  const size_t count = static_cast<size_t>(recvcount);
  const size_t block = count * DataTypeSize(type);
  const size_t all = block * static_cast<size_t>(c.size());
  const bool in_place = sendbuf == MPI_IN_PLACE;
  absl::Status staged = p.reduce.Mirror(in_place ? recvbuf : sendbuf, recvbuf, all, block);
  if (!staged.ok()) return Failed(std::move(staged));
  if (!in_place) {
    p.call = CollectiveCall::ReduceScatter(p.reduce.send_host(), p.reduce.recv_host(), count, type, op);
    return p;
  }
  // In place the input is the whole of recvbuf and the result its first block; kcoll's in-place form leaves the
  // result at the rank's own block, moved to the front after.
  char* data = static_cast<char*>(p.reduce.recv_host());
  p.move_from = data + static_cast<size_t>(c.rank()) * block;
  p.move_to = data;
  p.move_bytes = block;
  p.call = CollectiveCall::ReduceScatter(data, p.move_from, count, type, op);
  return p;
}

PlannedCall PlanReduceScatter(MpiFunction f, const Communicator& c, const void* sendbuf, void* recvbuf,
                              const int recvcounts[], DataType type, ReduceOp op) {
  PlannedCall p;
  p.counts.resize(static_cast<size_t>(c.size()));
  size_t before = 0;  // elements of the blocks before this rank's
  size_t total = 0;
  for (size_t j = 0; j < p.counts.size(); ++j) {
    if (recvcounts[j] < 0) {
      return Failed(
          absl::InvalidArgumentError(absl::StrCat(Name(f), ": recvcounts[", j, "] = ", recvcounts[j], " is negative")));
    }
    p.counts[j] = static_cast<size_t>(recvcounts[j]);
    total += p.counts[j];
    if (static_cast<int>(j) < c.rank()) before += p.counts[j];
  }
  const size_t elem = DataTypeSize(type);
  const size_t own = p.counts[static_cast<size_t>(c.rank())] * elem;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  absl::Status staged = p.reduce.Mirror(in_place ? recvbuf : sendbuf, recvbuf, total * elem, own);
  if (!staged.ok()) return Failed(std::move(staged));
  if (!in_place) {
    p.call = CollectiveCall::ReduceScatterV(p.reduce.send_host(), p.reduce.recv_host(), p.counts.data(), type, op);
    return p;
  }
  // In place as MPI_Reduce_scatter_block: kcoll's result lands on the rank's own block, MPI's at the start.
  char* data = static_cast<char*>(p.reduce.recv_host());
  p.move_from = data + before * elem;
  p.move_to = data;
  p.move_bytes = own;
  p.call = CollectiveCall::ReduceScatterV(data, p.move_from, p.counts.data(), type, op);
  return p;
}

int RunPlanned(MpiFunction f, MPI_Comm comm, Communicator* c, PlannedCall planned) {
  absl::Status status = planned.Ready();
  if (!status.ok()) return Done(f, comm, status);
  status = c->Call(planned.call);
  if (status.ok()) status = planned.Finish();
  return Done(f, comm, status);
}

int StartPlanned(MpiFunction f, MPI_Comm comm, Communicator* c, PlannedCall planned, MPI_Request* request) {
  const absl::Status ready = planned.Ready();
  if (!ready.ok()) return Done(f, comm, ready);
  auto held = std::make_shared<PlannedCall>(std::move(planned));
  return StartMpiRequest(
      f, c, c->ICall(held->call), [held] { return held->Finish(); }, request);
}

}  // namespace kcoll::drop_in
