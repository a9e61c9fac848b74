#include "bench/implementations/nccl_collectives.h"

#include "absl/strings/str_cat.h"
#include "bench/data/device_memory.h"
#include "collectives/transport/cuda/cuda_errors.h"
#include "collectives/transport/cuda/gpu_placement.h"
#include "collectives/transport/nccl/nccl_bootstrap.h"
#include "collectives/transport/nccl/nccl_errors.h"

namespace kcoll {
namespace {

// An NCCL call's result; a non-blocking communicator's ncclInProgress is waited out.
absl::Status Check(ncclResult_t result, const char* call, ncclComm_t comm) {
  if (result == ncclInProgress) return AwaitNccl(comm, kDefaultNcclTimeout, call);
  return NcclStatus(result, call, comm);
}

const char* At(const void* base, size_t block, size_t count, size_t elem) {
  return static_cast<const char*>(base) + block * count * elem;
}

char* At(void* base, size_t block, size_t count, size_t elem) {
  return static_cast<char*>(base) + block * count * elem;
}

// nccl-tests' grouped point-to-point collectives.
absl::Status RunGroupedSendRecv(Collective collective, const void* send, void* recv, size_t count, ncclDataType_t type,
                                size_t elem, int root, int rank, int nranks, ncclComm_t comm, cudaStream_t stream) {
  if (absl::Status s = Check(ncclGroupStart(), "ncclGroupStart", comm); !s.ok()) return s;
  absl::Status status;
  auto send_to = [&](const void* data, int peer) {
    if (status.ok()) status = Check(ncclSend(data, count, type, peer, comm, stream), "ncclSend", comm);
  };
  auto recv_from = [&](void* data, int peer) {
    if (status.ok()) status = Check(ncclRecv(data, count, type, peer, comm, stream), "ncclRecv", comm);
  };
  switch (collective) {
    case Collective::kAllToAll:
      for (int r = 0; r < nranks; ++r) {
        send_to(At(send, r, count, elem), r);
        recv_from(At(recv, r, count, elem), r);
      }
      break;
    case Collective::kGather:
    case Collective::kGatherV:  // equal counts
      send_to(send, root);
      if (rank == root) {
        for (int r = 0; r < nranks; ++r) recv_from(At(recv, r, count, elem), r);
      }
      break;
    case Collective::kScatter:
    case Collective::kScatterV:  // equal counts
      if (rank == root) {
        for (int r = 0; r < nranks; ++r) send_to(At(send, r, count, elem), r);
      }
      recv_from(recv, root);
      break;
    case Collective::kAllGatherV:  // equal counts: every rank's block to every rank
      for (int r = 0; r < nranks; ++r) {
        send_to(send, r);
        recv_from(At(recv, r, count, elem), r);
      }
      break;
    case Collective::kAllToAllV:  // equal counts: alltoall's grouped sends and receives
      for (int r = 0; r < nranks; ++r) {
        send_to(At(send, r, count, elem), r);
        recv_from(At(recv, r, count, elem), r);
      }
      break;
    case Collective::kSendRecv:
      send_to(send, (rank + 1) % nranks);
      recv_from(recv, (rank + nranks - 1) % nranks);
      break;
    default:
      status = absl::InvalidArgumentError(
          absl::StrCat(CollectiveName(collective), " is not a grouped send/recv collective"));
  }
  // The group is closed whatever happened inside it, so the communicator is usable (or abortable) afterwards.
  const absl::Status end = Check(ncclGroupEnd(), "ncclGroupEnd", comm);
  return status.ok() ? end : status;
}

}  // namespace

absl::StatusOr<ncclDataType_t> ToNcclDataType(DataType type) {
  switch (type) {
    case DataType::kInt8:
      return ncclInt8;
    case DataType::kUint8:
      return ncclUint8;
    case DataType::kInt32:
      return ncclInt32;
    case DataType::kUint32:
      return ncclUint32;
    case DataType::kInt64:
      return ncclInt64;
    case DataType::kUint64:
      return ncclUint64;
    case DataType::kFloat16:
      return ncclFloat16;
    case DataType::kBfloat16:
      return ncclBfloat16;
    case DataType::kFloat32:
      return ncclFloat32;
    case DataType::kFloat64:
      return ncclFloat64;
  }
  return absl::InvalidArgumentError(absl::StrCat("type ", static_cast<int>(type), " is not a kcoll DataType"));
}

absl::StatusOr<ncclRedOp_t> ToNcclRedOp(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return ncclSum;
    case ReduceOp::kProd:
      return ncclProd;
    case ReduceOp::kMin:
      return ncclMin;
    case ReduceOp::kMax:
      return ncclMax;
    case ReduceOp::kAvg:
      return ncclAvg;
  }
  return absl::InvalidArgumentError(absl::StrCat("op ", static_cast<int>(op), " is not a kcoll ReduceOp"));
}

absl::Status RunNcclCollective(Collective collective, const void* send, void* recv, size_t count, DataType type,
                               ReduceOp op, int root, ncclComm_t comm, cudaStream_t stream) {
  if (comm == nullptr) return absl::InvalidArgumentError("comm: null NCCL communicator");
  absl::StatusOr<ncclDataType_t> nccl_type = ToNcclDataType(type);
  if (!nccl_type.ok()) return nccl_type.status();
  int rank = 0, nranks = 1;
  if (absl::Status s = NcclStatus(ncclCommUserRank(comm, &rank), "ncclCommUserRank", comm); !s.ok()) return s;
  if (absl::Status s = NcclStatus(ncclCommCount(comm, &nranks), "ncclCommCount", comm); !s.ok()) return s;
  const bool rooted = IsRooted(collective);
  if (rooted && (root < 0 || root >= nranks)) {
    return absl::InvalidArgumentError(
        absl::StrCat(CollectiveName(collective), ": root ", root, " is not a rank in [0, ", nranks, ")"));
  }
  const bool reduces = Reduces(collective);
  ncclRedOp_t nccl_op = ncclSum;
  if (reduces) {
    absl::StatusOr<ncclRedOp_t> mapped = ToNcclRedOp(op);
    if (!mapped.ok()) return mapped.status();
    nccl_op = *mapped;
  }
  switch (collective) {
    case Collective::kAllReduce:
      return Check(ncclAllReduce(send, recv, count, *nccl_type, nccl_op, comm, stream), "ncclAllReduce", comm);
    case Collective::kReduceScatter:
    case Collective::kReduceScatterV:  // equal counts
      return Check(ncclReduceScatter(send, recv, count, *nccl_type, nccl_op, comm, stream), "ncclReduceScatter", comm);
    case Collective::kAllGather:
      return Check(ncclAllGather(send, recv, count, *nccl_type, comm, stream), "ncclAllGather", comm);
    case Collective::kBroadcast:
      return Check(ncclBroadcast(send, recv, count, *nccl_type, root, comm, stream), "ncclBroadcast", comm);
    case Collective::kReduce:
      return Check(ncclReduce(send, recv, count, *nccl_type, nccl_op, root, comm, stream), "ncclReduce", comm);
    case Collective::kAllToAll:
    case Collective::kGather:
    case Collective::kGatherV:
    case Collective::kScatter:
    case Collective::kScatterV:
    case Collective::kSendRecv:
    case Collective::kAllGatherV:
    case Collective::kAllToAllV:
      return RunGroupedSendRecv(collective, send, recv, count, *nccl_type, DataTypeSize(type), root, rank, nranks, comm,
                                stream);
    case Collective::kBarrier:
      return absl::InvalidArgumentError("barrier: NCCL has no barrier to compare with");
    case Collective::kScan:
    case Collective::kExScan:
      return absl::UnimplementedError(absl::StrCat(CollectiveName(collective), ": NCCL has no scan to compare with"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("collective ", static_cast<int>(collective), " is not a kcoll Collective"));
}

absl::StatusOr<double> TimeNcclCollective(Collective collective, const void* send, void* recv, size_t count,
                                          DataType type, ReduceOp op, int root, ncclComm_t comm, cudaStream_t stream,
                                          int iterations) {
  if (iterations <= 0) return absl::InvalidArgumentError(absl::StrCat("iterations: ", iterations, " is not positive"));
  if (absl::Status s = RunNcclCollective(collective, send, recv, count, type, op, root, comm, stream); !s.ok()) {
    return s;
  }
  absl::StatusOr<double> seconds = bench::TimeOnStream(stream, [&] {
    absl::Status status;
    for (int i = 0; status.ok() && i < iterations; ++i) {
      status = RunNcclCollective(collective, send, recv, count, type, op, root, comm, stream);
    }
    return status;
  });
  if (!seconds.ok()) return seconds.status();
  return *seconds / iterations;
}

}  // namespace kcoll
