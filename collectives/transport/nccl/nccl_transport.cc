#include "collectives/transport/nccl/nccl_transport.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "collectives/transport/backoff.h"
#include "collectives/transport/cuda/cuda_errors.h"
#include "collectives/transport/nccl/nccl_bootstrap.h"
#include "collectives/transport/nccl/nccl_errors.h"

namespace kcoll {
namespace {

// Ops listed in a stalled step's description; the rest are counted.
constexpr size_t kDescribedOps = 4;

}  // namespace

absl::StatusOr<std::unique_ptr<NcclTransport>> NcclTransport::Create(MPI_Comm bootstrap,
                                                                     const NcclTransportOptions& options) {
  NcclCommOptions comm_options;
  comm_options.device = options.device;
  comm_options.timeout = options.timeout;
  comm_options.nonblocking = options.nonblocking;
  absl::StatusOr<ncclComm_t> comm = CreateNcclComm(bootstrap, comm_options);
  if (!comm.ok()) return comm.status();
  return Adopt(*comm, options);
}

absl::StatusOr<std::unique_ptr<NcclTransport>> NcclTransport::Adopt(ncclComm_t comm,
                                                                    const NcclTransportOptions& options) {
  if (comm == nullptr) return absl::InvalidArgumentError("NcclTransport: null NCCL communicator");
  if (options.timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat("NcclTransport: timeout ", absl::FormatDuration(options.timeout),
                                                   " is not positive (absl::InfiniteDuration(): no limit)"));
  }
  int rank = 0, size = 0;
  absl::Status s = NcclStatus(ncclCommUserRank(comm, &rank), "ncclCommUserRank", comm);
  if (s.ok()) s = NcclStatus(ncclCommCount(comm, &size), "ncclCommCount", comm);
  if (!s.ok()) {
    ncclCommAbort(comm);
    return s;
  }
  return std::unique_ptr<NcclTransport>(new NcclTransport(comm, rank, size, options));
}

NcclTransport::NcclTransport(ncclComm_t comm, int rank, int size, const NcclTransportOptions& options)
    : CallTrackingTransport(rank, size), comm_(comm), device_(options.device), stream_(options.stream) {
  set_timeout(options.timeout, "KCOLL_TIMEOUT");
}

NcclTransport::~NcclTransport() {
  if (comm_ != nullptr) {
    absl::Status s = Synchronize();  // closes an open group and drains the stream
    if (s.ok() && comm_ != nullptr) {
      // Flushes outstanding work on every rank; destroying without it could leave a peer waiting.
      const ncclResult_t r = ncclCommFinalize(comm_);
      s = r == ncclInProgress ? AwaitNccl(comm_, timeout(), "ncclCommFinalize") : NcclStatus(r, "ncclCommFinalize");
    }
    if (comm_ != nullptr) {
      if (s.ok()) {
        ncclCommDestroy(comm_);
      } else {
        ncclCommAbort(comm_);
      }
      comm_ = nullptr;
    }
  }
  for (const Step& step : launched_) cudaEventDestroy(step.done);
  for (cudaEvent_t e : free_events_) cudaEventDestroy(e);
}

absl::StatusOr<Transport::Request> NcclTransport::Send(int peer, const void* data, size_t bytes, int /*tag*/) {
  return Post(/*send=*/true, peer, const_cast<void*>(data), bytes);
}

absl::StatusOr<Transport::Request> NcclTransport::Recv(int peer, void* data, size_t bytes, int /*tag*/) {
  return Post(/*send=*/false, peer, data, bytes);
}

absl::StatusOr<Transport::Request> NcclTransport::Post(bool send, int peer, void* data, size_t bytes) {
  const char* what = send ? "Send" : "Recv";
  if (!broken_.ok()) return broken_;
  if (absl::Status s = CheckTransfer(what, peer, data, bytes, /*tag=*/0, /*max_tag=*/0); !s.ok()) return s;
  if (!group_open_) {
    if (absl::Status s = NcclStatus(ncclGroupStart(), "ncclGroupStart"); !s.ok()) return Fail(s);
    group_open_ = true;
    open_ops_.clear();
  }
  const ncclResult_t r = send ? ncclSend(data, bytes, ncclUint8, peer, comm_, stream_)
                              : ncclRecv(data, bytes, ncclUint8, peer, comm_, stream_);
  if (r != ncclSuccess && r != ncclInProgress) {
    const absl::Status error = NcclStatus(r, send ? "ncclSend" : "ncclRecv", comm_);
    ncclGroupEnd();
    group_open_ = false;
    return Fail(error);
  }
  open_ops_.push_back(Op{send, peer, bytes});
  return Request{next_request_++};
}

absl::Status NcclTransport::Wait(Request request) {
  if (!broken_.ok()) return broken_;
  if (request.id < 0 || request.id >= next_request_) {
    return absl::InvalidArgumentError(absl::StrCat("Wait: request ", request.id, " is not pending"));
  }
  return group_open_ ? CloseGroup() : absl::OkStatus();
}

absl::Status NcclTransport::WaitAll() {
  if (!broken_.ok()) return broken_;
  next_request_ = 0;
  return group_open_ ? CloseGroup() : absl::OkStatus();
}

absl::StatusOr<cudaEvent_t> NcclTransport::TakeEvent() {
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

absl::Status NcclTransport::CloseGroup() {
  group_open_ = false;
  const int64_t index = step_++;
  std::vector<Op> ops;
  ops.swap(open_ops_);
  const ncclResult_t r = ncclGroupEnd();
  absl::Status s = r == ncclInProgress ? AwaitNccl(comm_, timeout(), "ncclGroupEnd") : NcclStatus(r, "ncclGroupEnd");
  if (!s.ok()) return Fail(absl::Status(s.code(), absl::StrCat(Describe(index, ops), ": ", s.message())));
  absl::StatusOr<cudaEvent_t> event = TakeEvent();
  if (!event.ok()) return Fail(event.status());
  if (absl::Status rec = CudaStatus(cudaEventRecord(*event, stream_), "cudaEventRecord"); !rec.ok()) {
    free_events_.push_back(*event);
    return Fail(rec);
  }
  launched_.push_back(Step{index, *event, std::move(ops)});
  return absl::OkStatus();
}

absl::Status NcclTransport::RecordTail(uint64_t mark) {
  if (!broken_.ok()) return broken_;
  if (group_open_) {
    if (absl::Status s = CloseGroup(); !s.ok()) return s;
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

absl::Status NcclTransport::Synchronize() {
  // One more event after everything on the stream: kernels enqueued after the last transfer finish too.
  if (absl::Status s = RecordTail(0); !s.ok()) return s;

  absl::Time last_progress = absl::Now();
  Backoff backoff;
  while (!launched_.empty()) {
    Step& step = launched_.front();
    const cudaError_t query = cudaEventQuery(step.done);
    if (query == cudaSuccess) {
      free_events_.push_back(step.done);
      launched_.pop_front();
      last_progress = absl::Now();
      backoff.Reset();
      continue;
    }
    if (query != cudaErrorNotReady) {
      return Fail(absl::Status(
          CudaStatus(query, "cudaEventQuery").code(),
          absl::StrCat(Describe(step.index, step.ops), ": ", CudaStatus(query, "cudaEventQuery").message())));
    }
    ncclResult_t async = ncclSuccess;
    const ncclResult_t polled = ncclCommGetAsyncError(comm_, &async);
    if (polled != ncclSuccess) return Fail(NcclStatus(polled, "ncclCommGetAsyncError", comm_));
    if (async != ncclSuccess && async != ncclInProgress) {
      const absl::Status error = NcclStatus(async, "NCCL (asynchronous error)", comm_);
      return Fail(absl::Status(error.code(), absl::StrCat(Describe(step.index, step.ops), ": ", error.message())));
    }
    if (absl::Now() - last_progress > timeout()) {
      return Fail(absl::DeadlineExceededError(
          absl::StrCat(Describe(step.index, step.ops), " made no progress for ", absl::FormatDuration(timeout()), " (",
                       timeout_source(), "); a peer may have stopped or posted a different schedule")));
    }
    backoff.Pause();
  }
  ++collective_;
  step_ = 0;
  reached_mark_ = last_mark_;
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> NcclTransport::MarkPosted() {
  if (absl::Status s = RecordTail(last_mark_ + 1); !s.ok()) return s;
  return ++last_mark_;
}

absl::StatusOr<bool> NcclTransport::Reached(uint64_t mark) {
  if (!broken_.ok()) return broken_;
  while (reached_mark_ < mark && !launched_.empty()) {
    Step& step = launched_.front();
    const cudaError_t query = cudaEventQuery(step.done);
    if (query == cudaErrorNotReady) break;
    if (query != cudaSuccess) {
      return Fail(absl::Status(
          CudaStatus(query, "cudaEventQuery").code(),
          absl::StrCat(Describe(step.index, step.ops), ": ", CudaStatus(query, "cudaEventQuery").message())));
    }
    if (step.mark != 0) reached_mark_ = step.mark;
    free_events_.push_back(step.done);
    launched_.pop_front();
  }
  return reached_mark_ >= mark;
}

std::string NcclTransport::Describe(int64_t step, const std::vector<Op>& ops) const {
  std::string out = absl::StrCat(call().collective, " (", call().algorithm, ") #", collective_, ", step ", step);
  if (ops.empty()) {
    absl::StrAppend(&out, " (kernels after the last transfer)");
    return out;
  }
  absl::StrAppend(&out, " (");
  for (size_t i = 0; i < ops.size() && i < kDescribedOps; ++i) {
    const Op& op = ops[i];
    absl::StrAppend(&out, i > 0 ? ", " : "", op.send ? "send " : "recv ", op.bytes, " B ", op.send ? "to " : "from ",
                    op.peer);
  }
  if (ops.size() > kDescribedOps) absl::StrAppend(&out, ", and ", ops.size() - kDescribedOps, " more");
  absl::StrAppend(&out, ")");
  return out;
}

absl::Status NcclTransport::Fail(const absl::Status& error) {
  if (comm_ != nullptr) {
    ncclCommAbort(comm_);
    comm_ = nullptr;
  }
  group_open_ = false;
  broken_ = absl::Status(error.code(), absl::StrCat("NCCL transport on rank ", rank(), " (device ", device_,
                                                    "), communicator aborted: ", error.message()));
  return broken_;
}

}  // namespace kcoll
