#include "collectives/transport/cuda_ipc/cuda_ipc_transport.h"

#include <algorithm>
#include <atomic>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/byte_size.h"
#include "collectives/transport/backoff.h"
#include "collectives/transport/cuda/cuda_errors.h"
#include "collectives/transport/mpi/agreement.h"
#include "collectives/transport/mpi/mpi_wait.h"

namespace kcoll {
namespace {

using cuda_ipc::ChannelPositions;
using cuda_ipc::Command;
using cuda_ipc::CommandKind;
using cuda_ipc::CounterReached;
using cuda_ipc::CounterValue;

// Each counter has a cache line of its own: one writer per line.
constexpr size_t kCounterStride = 64;
constexpr size_t kPageBytes = 4096;
// How long a failing transport keeps releasing its stream's waits before it reports the stream as still busy.
constexpr absl::Duration kReleaseLimit = absl::Seconds(10);

size_t FilledOffset(int from, int to, int n) { return kCounterStride * 2 * (static_cast<size_t>(from) * n + to); }
size_t ConsumedOffset(int from, int to, int n) { return FilledOffset(from, to, n) + kCounterStride; }
// After the counters, a line per rank with its failure flag.
size_t FailedOffset(int rank, int n) { return kCounterStride * (2 * static_cast<size_t>(n) * n + rank); }
size_t CountersBytes(int n) {
  const size_t bytes = FailedOffset(n, n);
  return (bytes + kPageBytes - 1) / kPageBytes * kPageBytes;
}

}  // namespace

absl::StatusOr<std::unique_ptr<CudaIpcTransport>> CudaIpcTransport::Create(MPI_Comm comm,
                                                                           const CudaIpcOptions& options) {
  absl::Status valid;
  if (options.timeout <= absl::ZeroDuration()) {
    valid = absl::InvalidArgumentError(absl::StrCat("cuda_ipc: timeout ", absl::FormatDuration(options.timeout),
                                                    " is not positive (absl::InfiniteDuration(): no limit)"));
  } else if (options.shape.slots < 1 || options.shape.slot_bytes == 0) {
    valid = absl::InvalidArgumentError(absl::StrCat("cuda_ipc: ", options.shape.slots, " slots of ",
                                                    options.shape.slot_bytes, " B per channel carry nothing"));
  }
  absl::StatusOr<cuda_ipc::StreamMemoryOps> ops = cuda_ipc::StreamMemoryOps::Load();
  if (valid.ok()) valid = ops.status();
  if (absl::Status s = AgreeAcrossRanks(comm, valid, "loading the CUDA IPC transport's stream operations"); !s.ok()) {
    return s;
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::unique_ptr<CudaIpcTransport> transport(new CudaIpcTransport(comm, rank, size, options, *ops));
  if (absl::Status s = transport->Setup(comm); !s.ok()) return s;
  return transport;
}

CudaIpcTransport::CudaIpcTransport(MPI_Comm comm, int rank, int size, const CudaIpcOptions& options,
                                   cuda_ipc::StreamMemoryOps ops)
    : CallTrackingTransport(rank, size),
      device_(options.device),
      stream_(options.stream),
      shape_(options.shape),
      ops_(ops),
      rank_names_(options.rank_names),
      peers_(size),
      positions_(size) {
  MPI_Comm_dup(comm, &comm_);
  set_timeout(options.timeout, "KCOLL_TIMEOUT");
}

absl::Status CudaIpcTransport::Setup(MPI_Comm comm) {
  const int n = size(), me = rank();
  // The counters, in host memory every GPU of the node maps.
  absl::StatusOr<std::unique_ptr<shm::Segment>> segment = shm::Segment::Create(comm, CountersBytes(n));
  if (!segment.ok()) return segment.status();
  counters_ = *std::move(segment);
  absl::Status local = CudaStatus(
      cudaHostRegister(counters_->data(), counters_->size(), cudaHostRegisterMapped | cudaHostRegisterPortable),
      "cudaHostRegister (the channels' counters)");
  counters_registered_ = local.ok();
  void* counters_device = nullptr;
  if (local.ok()) {
    local = CudaStatus(cudaHostGetDevicePointer(&counters_device, counters_->data(), 0), "cudaHostGetDevicePointer");
  }
  // The inbox: a ring per peer, exported to the node.
  const size_t ring_bytes = static_cast<size_t>(shape_.slots) * shape_.slot_bytes;
  cudaIpcMemHandle_t handle{};
  if (local.ok()) {
    local = CudaStatus(cudaMalloc(reinterpret_cast<void**>(&inbox_), ring_bytes * n),
                       absl::StrCat("cudaMalloc of the inbox (", FormatByteSize(ring_bytes * n), ")"));
  }
  if (local.ok()) local = CudaStatus(cudaIpcGetMemHandle(&handle, inbox_), "cudaIpcGetMemHandle");
  if (absl::Status s = AgreeAcrossRanks(comm, local, "allocating and exporting the CUDA IPC inboxes"); !s.ok()) {
    return s;
  }
  failed_ = reinterpret_cast<volatile uint32_t*>(counters_->data() + FailedOffset(me, n));
  std::vector<cudaIpcMemHandle_t> handles(n);
  MPI_Allgather(&handle, sizeof(handle), MPI_BYTE, handles.data(), sizeof(handle), MPI_BYTE, comm);
  for (int p = 0; p < n && local.ok(); ++p) {
    Peer& peer = peers_[p];
    unsigned char* base = counters_->data();
    unsigned char* base_device = static_cast<unsigned char*>(counters_device);
    peer.consumed_out = reinterpret_cast<volatile uint32_t*>(base + ConsumedOffset(me, p, n));
    peer.filled_in = reinterpret_cast<volatile uint32_t*>(base + FilledOffset(p, me, n));
    peer.filled_out_device = base_device + FilledOffset(me, p, n);
    peer.consumed_out_device = base_device + ConsumedOffset(me, p, n);
    peer.filled_in_device = base_device + FilledOffset(p, me, n);
    peer.consumed_in_device = base_device + ConsumedOffset(p, me, n);
    peer.ring_here = inbox_ + ring_bytes * p;
    peer.failed = reinterpret_cast<volatile uint32_t*>(base + FailedOffset(p, n));
    if (p == me) continue;
    local = CudaStatus(cudaIpcOpenMemHandle(&peer.opened, handles[p], cudaIpcMemLazyEnablePeerAccess),
                       absl::StrCat("cudaIpcOpenMemHandle (rank ", Name(p), "'s inbox)"));
    if (local.ok()) peer.ring_in_peer = static_cast<unsigned char*>(peer.opened) + ring_bytes * me;
  }
  absl::Status opened = AgreeAcrossRanks(comm, local, "opening every peer's CUDA IPC inbox");
  ready_ = opened.ok();
  return opened;
}

CudaIpcTransport::~CudaIpcTransport() {
  if (!ready_ || !broken_.ok()) {
    keep_inbox_ = !broken_.ok();
  } else if (!Synchronize().ok()) {
    keep_inbox_ = true;
  }
  for (Peer& peer : peers_) {
    if (peer.opened != nullptr) cudaIpcCloseMemHandle(peer.opened);
  }
  // A peer's stream may still write into this rank's inbox when a message was left unreceived: the memory is kept.
  if (inbox_ != nullptr && !keep_inbox_) cudaFree(inbox_);
  if (counters_registered_) cudaHostUnregister(counters_->data());
  for (const Step& step : launched_) cudaEventDestroy(step.done);
  for (cudaEvent_t e : free_events_) cudaEventDestroy(e);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

std::string CudaIpcTransport::Describe() const {
  return absl::StrCat("cuda_ipc: ", size(), " ranks, ", shape_.slots, " slots x ", FormatByteSize(shape_.slot_bytes),
                      " per pair, device ", device_);
}

absl::StatusOr<Transport::Request> CudaIpcTransport::Send(int peer, const void* data, size_t bytes, int /*tag*/) {
  return Post(/*send=*/true, peer, const_cast<void*>(data), bytes);
}

absl::StatusOr<Transport::Request> CudaIpcTransport::Recv(int peer, void* data, size_t bytes, int /*tag*/) {
  return Post(/*send=*/false, peer, data, bytes);
}

absl::StatusOr<Transport::Request> CudaIpcTransport::Post(bool send, int peer, void* data, size_t bytes) {
  if (!broken_.ok()) return broken_;
  if (absl::Status s = CheckTransfer(send ? "Send" : "Recv", peer, data, bytes, /*tag=*/0, /*max_tag=*/0); !s.ok()) {
    return s;
  }
  if (peer == rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat(send ? "Send" : "Recv", ": peer ", peer, " is this rank (cuda_ipc moves between ranks only)"));
  }
  open_.push_back(cuda_ipc::PostedTransfer{send, peer, static_cast<unsigned char*>(data), bytes});
  return Request{next_request_++};
}

absl::Status CudaIpcTransport::Wait(Request request) {
  if (!broken_.ok()) return broken_;
  if (request.id < 0 || request.id >= next_request_) {
    return absl::InvalidArgumentError(absl::StrCat("Wait: request ", request.id, " is not pending"));
  }
  return open_.empty() ? absl::OkStatus() : LaunchGroup();
}

absl::Status CudaIpcTransport::WaitAll() {
  if (!broken_.ok()) return broken_;
  next_request_ = 0;
  return open_.empty() ? absl::OkStatus() : LaunchGroup();
}

absl::Status CudaIpcTransport::Enqueue(const Command& c) {
  Peer& peer = peers_[c.peer];
  const size_t slot_offset = static_cast<size_t>(c.slot) * shape_.slot_bytes;
  switch (c.kind) {
    case CommandKind::kWaitConsumed:
      return ops_.Wait(stream_, peer.consumed_out_device, c.value);
    case CommandKind::kCopyToPeer:
      return CudaStatus(
          cudaMemcpyAsync(peer.ring_in_peer + slot_offset, c.data, c.bytes, cudaMemcpyDeviceToDevice, stream_),
          "cudaMemcpyAsync (to a peer's slot)");
    case CommandKind::kSignalFilled:
      return ops_.Write(stream_, peer.filled_out_device, c.value);
    case CommandKind::kWaitFilled:
      return ops_.Wait(stream_, peer.filled_in_device, c.value);
    case CommandKind::kCopyFromSlot:
      return CudaStatus(
          cudaMemcpyAsync(c.data, peer.ring_here + slot_offset, c.bytes, cudaMemcpyDeviceToDevice, stream_),
          "cudaMemcpyAsync (out of a slot)");
    case CommandKind::kSignalConsumed:
      return ops_.Write(stream_, peer.consumed_in_device, c.value);
  }
  return absl::InternalError("cuda_ipc: unknown command");
}

absl::Status CudaIpcTransport::LaunchGroup() {
  std::vector<cuda_ipc::PostedTransfer> transfers;
  transfers.swap(open_);
  const int64_t index = step_++;
  absl::StatusOr<std::vector<Command>> commands = cuda_ipc::PlanGroup(transfers, shape_, &positions_);
  if (!commands.ok()) return Fail(commands.status());
  // Where each transfer's channel count stands once it is done: the count after its last chunk.
  std::vector<Launched> launched;
  launched.reserve(transfers.size());
  for (const cuda_ipc::PostedTransfer& t : transfers) launched.push_back(Launched{t.send, t.peer, t.bytes, 0});
  for (const Command& c : *commands) {
    if (absl::Status s = Enqueue(c); !s.ok()) {
      return Fail(absl::Status(
          s.code(), absl::StrCat(call().collective, " (", call().algorithm, ") step ", index, ", ",
                                 cuda_ipc::CommandName(c.kind), " with rank ", Name(c.peer), ": ", s.message())));
    }
    // The last chunk's signal says what completes the transfer.
    if (c.kind == CommandKind::kSignalFilled || c.kind == CommandKind::kSignalConsumed) {
      launched[c.transfer].done_at = c.value;
    }
  }
  absl::StatusOr<cudaEvent_t> event = TakeEvent();
  if (!event.ok()) return Fail(event.status());
  if (absl::Status rec = CudaStatus(cudaEventRecord(*event, stream_), "cudaEventRecord"); !rec.ok()) {
    free_events_.push_back(*event);
    return Fail(rec);
  }
  launched_.push_back(Step{index, *event, std::move(launched)});
  return absl::OkStatus();
}

absl::StatusOr<cudaEvent_t> CudaIpcTransport::TakeEvent() {
  if (!free_events_.empty()) {
    cudaEvent_t e = free_events_.back();
    free_events_.pop_back();
    return e;
  }
  cudaEvent_t e = nullptr;
  if (absl::Status s = CudaStatus(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags");
      !s.ok()) {
    return s;
  }
  return e;
}

absl::Status CudaIpcTransport::RecordTail(uint64_t mark) {
  if (!broken_.ok()) return broken_;
  if (!open_.empty()) {
    if (absl::Status s = LaunchGroup(); !s.ok()) return s;
  }
  next_request_ = 0;
  absl::StatusOr<cudaEvent_t> tail = TakeEvent();
  if (!tail.ok()) return Fail(tail.status());
  if (absl::Status s = CudaStatus(cudaEventRecord(*tail, stream_), "cudaEventRecord"); !s.ok()) {
    free_events_.push_back(*tail);
    return Fail(s);
  }
  launched_.push_back(Step{step_, *tail, {}, mark});
  return absl::OkStatus();
}

absl::Status CudaIpcTransport::Synchronize() {
  if (absl::Status s = RecordTail(0); !s.ok()) return s;
  absl::Time last_progress = absl::Now();
  Backoff backoff;
  while (!launched_.empty()) {
    Step& step = launched_.front();
    const cudaError_t query = cudaEventQuery(step.done);
    if (query == cudaSuccess) {
      if (absl::Status s = PeerFailure(); !s.ok()) return Fail(s);
      for (const Launched& t : step.transfers) {
        if (!t.send) NoteReceived(Name(t.peer));
      }
      free_events_.push_back(step.done);
      launched_.pop_front();
      last_progress = absl::Now();
      backoff.Reset();
      continue;
    }
    if (query != cudaErrorNotReady) {
      const absl::Status error = CudaStatus(query, "cudaEventQuery");
      return Fail(absl::Status(error.code(), absl::StrCat(call().collective, " (", call().algorithm, ") step ",
                                                          step.index, ": ", error.message())));
    }
    if (absl::Status s = PeerFailure(); !s.ok()) return Fail(s);
    if (absl::Now() - last_progress > timeout()) return Fail(Stalled(step));
    backoff.Pause();
  }
  if (absl::Status s = PeerFailure(); !s.ok()) return Fail(s);
  ++collective_;
  step_ = 0;
  reached_mark_ = last_mark_;
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> CudaIpcTransport::MarkPosted() {
  if (absl::Status s = RecordTail(last_mark_ + 1); !s.ok()) return s;
  return ++last_mark_;
}

absl::StatusOr<bool> CudaIpcTransport::Reached(uint64_t mark) {
  if (!broken_.ok()) return broken_;
  while (reached_mark_ < mark && !launched_.empty()) {
    Step& step = launched_.front();
    const cudaError_t query = cudaEventQuery(step.done);
    if (query == cudaErrorNotReady) break;
    if (query != cudaSuccess) return Fail(CudaStatus(query, "cudaEventQuery"));
    if (absl::Status s = PeerFailure(); !s.ok()) return Fail(s);
    if (step.mark != 0) reached_mark_ = step.mark;
    free_events_.push_back(step.done);
    launched_.pop_front();
  }
  return reached_mark_ >= mark;
}

absl::Status CudaIpcTransport::Stalled(const Step& step) {
  std::vector<Pending> pending;
  std::vector<std::string> behind;
  for (const Launched& t : step.transfers) {
    const Peer& peer = peers_[t.peer];
    // A send is done once the peer has taken its last chunk out; a receive once the peer has put its last chunk in.
    const uint32_t have = t.send ? *peer.consumed_out : *peer.filled_in;
    if (CounterReached(have, t.done_at)) continue;
    pending.push_back(Pending{t.send, Name(t.peer), t.bytes});
    behind.push_back(absl::StrCat("rank ", Name(t.peer), " is ", t.done_at - have, " chunk(s) short of ",
                                  t.send ? "taking out this rank's send" : "putting in this rank's receive", " of ",
                                  t.bytes, " B"));
  }
  std::string diagnosis;
  if (!behind.empty()) {
    diagnosis = absl::StrCat("; the counters show: ", absl::StrJoin(behind, "; "),
                             "; a peer stopped, died, or called with different arguments");
  } else {
    diagnosis = "; every transfer of the step is done but the stream did not reach its end (a kernel that hangs?)";
  }
  return TimedOut(Name(rank()), pending, diagnosis);
}

absl::Status CudaIpcTransport::PeerFailure() const {
  for (int p = 0; p < size(); ++p) {
    if (p != rank() && *peers_[p].failed != 0) {
      return absl::AbortedError(absl::StrCat("rank ", Name(p), "'s CUDA IPC transport failed (its own error says why)",
                                             "; what this rank received in this call cannot be trusted"));
    }
  }
  return absl::OkStatus();
}

absl::Status CudaIpcTransport::Fail(const absl::Status& error) {
  if (broken_.ok()) {
    broken_ = absl::Status(error.code(), absl::StrCat("CUDA IPC transport on rank ", Name(rank()), " (device ", device_,
                                                      "), transport failed: ", error.message()));
    // The flag first: a peer that receives what the released stream sends out of turn sees it before its call ends.
    if (failed_ != nullptr) {
      *failed_ = 1;
      std::atomic_thread_fence(std::memory_order_seq_cst);
    }
    // Release every wait this rank's stream may be held at: write into the counters it waits on the largest value it
    // was told to wait for, so that the stream drains (the data it then copies is meaningless, and no result is
    // reported), and this rank's buffers are free once Fail returns. A peer still running may write a smaller value
    // over the release, so the values are written again until the stream is idle, for a bounded time.
    const absl::Time give_up = absl::Now() + kReleaseLimit;
    while (ready_) {
      for (int p = 0; p < size(); ++p) {
        if (p == rank()) continue;
        *peers_[p].consumed_out = CounterValue(positions_[p].sent);
        *peers_[p].filled_in = CounterValue(positions_[p].received);
      }
      const cudaError_t idle = cudaStreamQuery(stream_);
      if (idle != cudaErrorNotReady) break;
      if (absl::Now() > give_up) {
        broken_ = absl::Status(
            broken_.code(),
            absl::StrCat(broken_.message(), "; the stream was still busy ", absl::FormatDuration(kReleaseLimit),
                         " after its waits were released (a kernel that does not end?): its transfers may still "
                         "write into their buffers"));
        break;
      }
      absl::SleepFor(absl::Microseconds(100));
    }
    cudaGetLastError();
    for (const Step& step : launched_) free_events_.push_back(step.done);
    launched_.clear();
    open_.clear();
    keep_inbox_ = true;
  }
  return broken_;
}

void CudaIpcTransport::Abandon() {
  if (broken_.ok() && (!launched_.empty() || !open_.empty())) {
    Fail(absl::AbortedError(absl::StrCat(CallName(), " was abandoned with transfers in flight"))).IgnoreError();
  }
}

absl::Status CudaIpcTransport::Quiesce(absl::Duration timeout) {
  if (!broken_.ok()) return broken_;
  if (absl::Status s = Synchronize(); !s.ok()) return s;
  std::vector<int> scratch;
  if (absl::Status s = FinalizeBarrier(comm_, timeout, &scratch); !s.ok()) return s;
  // Every rank has drained its stream: a channel into this rank filled beyond what this rank took out carries a
  // message no receive matched.
  for (int p = 0; p < size(); ++p) {
    if (p == rank()) continue;
    if (*peers_[p].filled_in != CounterValue(positions_[p].received)) {
      keep_inbox_ = true;
      return absl::FailedPreconditionError(
          absl::StrCat("a message from rank ", Name(p), " was left unreceived (a call whose arguments differed)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace kcoll
