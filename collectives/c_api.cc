// The C API (collectives/kcoll.h) over the C++ Communicator: argument conversion, status codes, and the message of
// the last failure kept per thread.
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "collectives/communicator.h"
#include "collectives/kcoll.h"
#include "collectives/kernels/backend.h"

struct kcoll_comm_s {
  std::unique_ptr<kcoll::Communicator> comm;
};

struct kcoll_request_s {
  kcoll::Request request;
};

namespace {

thread_local std::string last_error;
bool initialized_kokkos = false;

int Report(const absl::Status& status) {
  if (!status.ok()) last_error = std::string(status.message());
  return static_cast<int>(status.code());
}

absl::StatusOr<kcoll::DataType> ToDataType(kcoll_datatype type) {
  switch (type) {
    case KCOLL_INT8:
      return kcoll::DataType::kInt8;
    case KCOLL_UINT8:
      return kcoll::DataType::kUint8;
    case KCOLL_INT32:
      return kcoll::DataType::kInt32;
    case KCOLL_UINT32:
      return kcoll::DataType::kUint32;
    case KCOLL_INT64:
      return kcoll::DataType::kInt64;
    case KCOLL_UINT64:
      return kcoll::DataType::kUint64;
    case KCOLL_FLOAT16:
      return kcoll::DataType::kFloat16;
    case KCOLL_BFLOAT16:
      return kcoll::DataType::kBfloat16;
    case KCOLL_FLOAT32:
      return kcoll::DataType::kFloat32;
    case KCOLL_FLOAT64:
      return kcoll::DataType::kFloat64;
  }
  return absl::InvalidArgumentError(absl::StrCat("type: ", static_cast<int>(type), " is not a kcoll_datatype"));
}

absl::StatusOr<kcoll::ReduceOp> ToReduceOp(kcoll_op op) {
  switch (op) {
    case KCOLL_SUM:
      return kcoll::ReduceOp::kSum;
    case KCOLL_PROD:
      return kcoll::ReduceOp::kProd;
    case KCOLL_MIN:
      return kcoll::ReduceOp::kMin;
    case KCOLL_MAX:
      return kcoll::ReduceOp::kMax;
    case KCOLL_AVG:
      return kcoll::ReduceOp::kAvg;
  }
  return absl::InvalidArgumentError(absl::StrCat("op: ", static_cast<int>(op), " is not a kcoll_op"));
}

absl::StatusOr<kcoll::Communicator*> Get(kcoll_comm comm) {
  if (comm == nullptr || comm->comm == nullptr) return absl::InvalidArgumentError("comm: NULL is not a communicator");
  return comm->comm.get();
}

// Runs `call(communicator, type, op)` after converting the C arguments; returns the status code. A type or op that
// is not kcoll's is this rank's rejection of `collective`, made through RejectCall so that the other ranks fail too.
template <typename Call>
int Run(kcoll_comm comm, kcoll::Collective collective, kcoll_datatype type, kcoll_op op, Call call) {
  absl::StatusOr<kcoll::Communicator*> c = Get(comm);
  if (!c.ok()) return Report(c.status());
  absl::StatusOr<kcoll::DataType> t = ToDataType(type);
  if (!t.ok()) return Report((*c)->RejectCall(collective, t.status()));
  absl::StatusOr<kcoll::ReduceOp> o = ToReduceOp(op);
  if (!o.ok()) return Report((*c)->RejectCall(collective, o.status()));
  return Report(call(**c, *t, *o));
}

// Issues `call(communicator, type, op)`, a nonblocking call, into *request; a rejection on this rank is returned
// here, as Run returns it, and leaves *request NULL.
template <typename Call>
int Issue(kcoll_comm comm, kcoll::Collective collective, kcoll_datatype type, kcoll_op op, kcoll_request* request,
          Call call) {
  if (request == nullptr)
    return Report(absl::InvalidArgumentError("request: NULL (pass the address of a kcoll_request)"));
  *request = nullptr;
  return Run(comm, collective, type, op, [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp o) {
    *request = new kcoll_request_s{call(c, t, o)};
    return absl::OkStatus();
  });
}

int Complete(kcoll_request* request) {
  if (request == nullptr || *request == nullptr) return KCOLL_OK;
  const absl::Status status = (*request)->request.Wait();
  delete *request;
  *request = nullptr;
  return Report(status);
}

}  // namespace

extern "C" {

const char* kcoll_error_string(void) { return last_error.c_str(); }

const char* kcoll_status_name(int status) {
  static const char* const kNames[] = {
      "OK",        "CANCELLED",      "UNKNOWN",           "INVALID_ARGUMENT",   "DEADLINE_EXCEEDED",
      "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
      "ABORTED",   "OUT_OF_RANGE",   "UNIMPLEMENTED",     "INTERNAL",           "UNAVAILABLE",
      "DATA_LOSS", "UNAUTHENTICATED"};
  if (status < 0 || status >= static_cast<int>(sizeof(kNames) / sizeof(kNames[0]))) return "UNKNOWN_STATUS";
  return kNames[status];
}

int kcoll_initialize(int* argc, char*** argv) {
  if (kcoll::StartKokkos(argc, argv)) initialized_kokkos = true;
  return KCOLL_OK;
}

int kcoll_finalize(void) {
  if (initialized_kokkos) kcoll::StopKokkos();
  initialized_kokkos = false;
  return KCOLL_OK;
}

int kcoll_comm_create(MPI_Comm comm, kcoll_comm* out) {
  if (out == nullptr) return Report(absl::InvalidArgumentError("out: NULL"));
  *out = nullptr;
  absl::StatusOr<std::unique_ptr<kcoll::Communicator>> created = kcoll::Communicator::Create(comm);
  if (!created.ok()) return Report(created.status());
  *out = new kcoll_comm_s{*std::move(created)};
  return KCOLL_OK;
}

int kcoll_comm_create_f(MPI_Fint comm, kcoll_comm* out) { return kcoll_comm_create(MPI_Comm_f2c(comm), out); }

int kcoll_comm_split(kcoll_comm comm, int color, int key, kcoll_comm* out) {
  if (out == nullptr) return Report(absl::InvalidArgumentError("out: NULL"));
  *out = nullptr;
  absl::StatusOr<kcoll::Communicator*> c = Get(comm);
  if (!c.ok()) return Report(c.status());
  absl::StatusOr<std::unique_ptr<kcoll::Communicator>> split = (*c)->Split(color, key);
  if (!split.ok()) return Report(split.status());
  if (*split != nullptr) *out = new kcoll_comm_s{*std::move(split)};
  return KCOLL_OK;
}

int kcoll_comm_dup(kcoll_comm comm, kcoll_comm* out) {
  if (out == nullptr) return Report(absl::InvalidArgumentError("out: NULL"));
  *out = nullptr;
  absl::StatusOr<kcoll::Communicator*> c = Get(comm);
  if (!c.ok()) return Report(c.status());
  absl::StatusOr<std::unique_ptr<kcoll::Communicator>> dup = (*c)->Dup();
  if (!dup.ok()) return Report(dup.status());
  *out = new kcoll_comm_s{*std::move(dup)};
  return KCOLL_OK;
}

int kcoll_comm_free(kcoll_comm comm) {
  if (comm == nullptr) return KCOLL_OK;
  absl::Status s = comm->comm->Finalize();
  delete comm;
  return Report(s);
}

int kcoll_comm_rank(kcoll_comm comm, int* rank) {
  absl::StatusOr<kcoll::Communicator*> c = Get(comm);
  if (!c.ok()) return Report(c.status());
  if (rank == nullptr) return Report(absl::InvalidArgumentError("rank: NULL"));
  *rank = (*c)->rank();
  return KCOLL_OK;
}

int kcoll_comm_size(kcoll_comm comm, int* size) {
  absl::StatusOr<kcoll::Communicator*> c = Get(comm);
  if (!c.ok()) return Report(c.status());
  if (size == nullptr) return Report(absl::InvalidArgumentError("size: NULL"));
  *size = (*c)->size();
  return KCOLL_OK;
}

int kcoll_allreduce(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type, kcoll_op op) {
  return Run(comm, kcoll::Collective::kAllReduce, type, op,
             [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp o) {
               return c.AllReduce(send, recv, count, t, o);
             });
}

int kcoll_reduce_scatter(kcoll_comm comm, const void* send, void* recv, size_t recvcount, kcoll_datatype type,
                         kcoll_op op) {
  return Run(comm, kcoll::Collective::kReduceScatter, type, op,
             [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp o) {
               return c.ReduceScatter(send, recv, recvcount, t, o);
             });
}

int kcoll_allgather(kcoll_comm comm, const void* send, void* recv, size_t sendcount, kcoll_datatype type) {
  return Run(comm, kcoll::Collective::kAllGather, type, KCOLL_SUM,
             [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp) {
               return c.AllGather(send, recv, sendcount, t);
             });
}

int kcoll_broadcast(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type, int root) {
  return Run(comm, kcoll::Collective::kBroadcast, type, KCOLL_SUM,
             [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp) {
               return c.Broadcast(send, recv, count, t, root);
             });
}

int kcoll_reduce(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type, kcoll_op op,
                 int root) {
  return Run(comm, kcoll::Collective::kReduce, type, op,
             [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp o) {
               return c.Reduce(send, recv, count, t, o, root);
             });
}

int kcoll_alltoall(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type) {
  return Run(
      comm, kcoll::Collective::kAllToAll, type, KCOLL_SUM,
      [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp) { return c.AllToAll(send, recv, count, t); });
}

int kcoll_gather(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type, int root) {
  return Run(
      comm, kcoll::Collective::kGather, type, KCOLL_SUM,
      [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp) { return c.Gather(send, recv, count, t, root); });
}

int kcoll_scatter(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type, int root) {
  return Run(comm, kcoll::Collective::kScatter, type, KCOLL_SUM,
             [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp) {
               return c.Scatter(send, recv, count, t, root);
             });
}

int kcoll_sendrecv(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type) {
  return Run(
      comm, kcoll::Collective::kSendRecv, type, KCOLL_SUM,
      [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp) { return c.SendRecv(send, recv, count, t); });
}

int kcoll_barrier(kcoll_comm comm) {
  absl::StatusOr<kcoll::Communicator*> c = Get(comm);
  if (!c.ok()) return Report(c.status());
  return Report((*c)->Barrier());
}

int kcoll_scan(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type, kcoll_op op) {
  return Run(
      comm, kcoll::Collective::kScan, type, op,
      [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp o) { return c.Scan(send, recv, count, t, o); });
}

int kcoll_exscan(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type, kcoll_op op) {
  return Run(
      comm, kcoll::Collective::kExScan, type, op,
      [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp o) { return c.ExScan(send, recv, count, t, o); });
}

int kcoll_allgatherv(kcoll_comm comm, const void* send, size_t sendcount, void* recv, const size_t* recvcounts,
                     const size_t* recvdispls, kcoll_datatype type) {
  return Run(comm, kcoll::Collective::kAllGatherV, type, KCOLL_SUM,
             [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp) {
               return c.AllGatherV(send, sendcount, recv, recvcounts, recvdispls, t);
             });
}

int kcoll_alltoallv(kcoll_comm comm, const void* send, const size_t* sendcounts, const size_t* senddispls, void* recv,
                    const size_t* recvcounts, const size_t* recvdispls, kcoll_datatype type) {
  return Run(comm, kcoll::Collective::kAllToAllV, type, KCOLL_SUM,
             [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp) {
               return c.AllToAllV(send, sendcounts, senddispls, recv, recvcounts, recvdispls, t);
             });
}

int kcoll_reduce_scatterv(kcoll_comm comm, const void* send, void* recv, const size_t* recvcounts, kcoll_datatype type,
                          kcoll_op op) {
  return Run(comm, kcoll::Collective::kReduceScatterV, type, op,
             [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp o) {
               return c.ReduceScatterV(send, recv, recvcounts, t, o);
             });
}

int kcoll_gatherv(kcoll_comm comm, const void* send, size_t sendcount, void* recv, const size_t* recvcounts,
                  const size_t* recvdispls, kcoll_datatype type, int root) {
  return Run(comm, kcoll::Collective::kGatherV, type, KCOLL_SUM,
             [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp) {
               return c.GatherV(send, sendcount, recv, recvcounts, recvdispls, t, root);
             });
}

int kcoll_scatterv(kcoll_comm comm, const void* send, const size_t* sendcounts, const size_t* senddispls, void* recv,
                   size_t recvcount, kcoll_datatype type, int root) {
  return Run(comm, kcoll::Collective::kScatterV, type, KCOLL_SUM,
             [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp) {
               return c.ScatterV(send, sendcounts, senddispls, recv, recvcount, t, root);
             });
}

int kcoll_iallreduce(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type, kcoll_op op,
                     kcoll_request* request) {
  return Issue(comm, kcoll::Collective::kAllReduce, type, op, request,
               [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp o) {
                 return c.IAllReduce(send, recv, count, t, o);
               });
}

int kcoll_ireduce_scatter(kcoll_comm comm, const void* send, void* recv, size_t recvcount, kcoll_datatype type,
                          kcoll_op op, kcoll_request* request) {
  return Issue(comm, kcoll::Collective::kReduceScatter, type, op, request,
               [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp o) {
                 return c.IReduceScatter(send, recv, recvcount, t, o);
               });
}

int kcoll_iallgather(kcoll_comm comm, const void* send, void* recv, size_t sendcount, kcoll_datatype type,
                     kcoll_request* request) {
  return Issue(comm, kcoll::Collective::kAllGather, type, KCOLL_SUM, request,
               [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp) {
                 return c.IAllGather(send, recv, sendcount, t);
               });
}

int kcoll_ibroadcast(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type, int root,
                     kcoll_request* request) {
  return Issue(comm, kcoll::Collective::kBroadcast, type, KCOLL_SUM, request,
               [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp) {
                 return c.IBroadcast(send, recv, count, t, root);
               });
}

int kcoll_ireduce(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type, kcoll_op op,
                  int root, kcoll_request* request) {
  return Issue(comm, kcoll::Collective::kReduce, type, op, request,
               [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp o) {
                 return c.IReduce(send, recv, count, t, o, root);
               });
}

int kcoll_ialltoall(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type,
                    kcoll_request* request) {
  return Issue(
      comm, kcoll::Collective::kAllToAll, type, KCOLL_SUM, request,
      [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp) { return c.IAllToAll(send, recv, count, t); });
}

int kcoll_igather(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type, int root,
                  kcoll_request* request) {
  return Issue(comm, kcoll::Collective::kGather, type, KCOLL_SUM, request,
               [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp) {
                 return c.IGather(send, recv, count, t, root);
               });
}

int kcoll_iscatter(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type, int root,
                   kcoll_request* request) {
  return Issue(comm, kcoll::Collective::kScatter, type, KCOLL_SUM, request,
               [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp) {
                 return c.IScatter(send, recv, count, t, root);
               });
}

int kcoll_isendrecv(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type,
                    kcoll_request* request) {
  return Issue(
      comm, kcoll::Collective::kSendRecv, type, KCOLL_SUM, request,
      [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp) { return c.ISendRecv(send, recv, count, t); });
}

int kcoll_ibarrier(kcoll_comm comm, kcoll_request* request) {
  return Issue(comm, kcoll::Collective::kBarrier, KCOLL_UINT8, KCOLL_SUM, request,
               [&](kcoll::Communicator& c, kcoll::DataType, kcoll::ReduceOp) { return c.IBarrier(); });
}

int kcoll_iscan(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type, kcoll_op op,
                kcoll_request* request) {
  return Issue(
      comm, kcoll::Collective::kScan, type, op, request,
      [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp o) { return c.IScan(send, recv, count, t, o); });
}

int kcoll_iexscan(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type, kcoll_op op,
                  kcoll_request* request) {
  return Issue(
      comm, kcoll::Collective::kExScan, type, op, request,
      [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp o) { return c.IExScan(send, recv, count, t, o); });
}

int kcoll_iallgatherv(kcoll_comm comm, const void* send, size_t sendcount, void* recv, const size_t* recvcounts,
                      const size_t* recvdispls, kcoll_datatype type, kcoll_request* request) {
  return Issue(comm, kcoll::Collective::kAllGatherV, type, KCOLL_SUM, request,
               [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp) {
                 return c.IAllGatherV(send, sendcount, recv, recvcounts, recvdispls, t);
               });
}

int kcoll_ialltoallv(kcoll_comm comm, const void* send, const size_t* sendcounts, const size_t* senddispls, void* recv,
                     const size_t* recvcounts, const size_t* recvdispls, kcoll_datatype type, kcoll_request* request) {
  return Issue(comm, kcoll::Collective::kAllToAllV, type, KCOLL_SUM, request,
               [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp) {
                 return c.IAllToAllV(send, sendcounts, senddispls, recv, recvcounts, recvdispls, t);
               });
}

int kcoll_ireduce_scatterv(kcoll_comm comm, const void* send, void* recv, const size_t* recvcounts, kcoll_datatype type,
                           kcoll_op op, kcoll_request* request) {
  return Issue(comm, kcoll::Collective::kReduceScatterV, type, op, request,
               [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp o) {
                 return c.IReduceScatterV(send, recv, recvcounts, t, o);
               });
}

int kcoll_igatherv(kcoll_comm comm, const void* send, size_t sendcount, void* recv, const size_t* recvcounts,
                   const size_t* recvdispls, kcoll_datatype type, int root, kcoll_request* request) {
  return Issue(comm, kcoll::Collective::kGatherV, type, KCOLL_SUM, request,
               [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp) {
                 return c.IGatherV(send, sendcount, recv, recvcounts, recvdispls, t, root);
               });
}

int kcoll_iscatterv(kcoll_comm comm, const void* send, const size_t* sendcounts, const size_t* senddispls, void* recv,
                    size_t recvcount, kcoll_datatype type, int root, kcoll_request* request) {
  return Issue(comm, kcoll::Collective::kScatterV, type, KCOLL_SUM, request,
               [&](kcoll::Communicator& c, kcoll::DataType t, kcoll::ReduceOp) {
                 return c.IScatterV(send, sendcounts, senddispls, recv, recvcount, t, root);
               });
}

int kcoll_wait(kcoll_request* request) { return Complete(request); }

int kcoll_test(kcoll_request* request, int* done) {
  if (done == nullptr) return Report(absl::InvalidArgumentError("done: NULL (pass the address of an int)"));
  *done = 1;
  if (request == nullptr || *request == nullptr) return KCOLL_OK;
  absl::StatusOr<bool> finished = (*request)->request.Test();
  if (!finished.ok()) return Report(finished.status());
  *done = *finished ? 1 : 0;
  return *finished ? Complete(request) : KCOLL_OK;
}

int kcoll_waitall(size_t count, kcoll_request* requests) {
  if (count > 0 && requests == nullptr) {
    return Report(absl::InvalidArgumentError(absl::StrCat("requests: NULL with count ", count)));
  }
  int first = KCOLL_OK;
  std::string first_error;
  for (size_t i = 0; i < count; ++i) {
    const int status = Complete(&requests[i]);
    if (first == KCOLL_OK && status != KCOLL_OK) {
      first = status;
      first_error = last_error;
    }
  }
  if (first != KCOLL_OK) last_error = first_error;
  return first;
}

}  // extern "C"
