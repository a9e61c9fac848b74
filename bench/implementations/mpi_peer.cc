#include "bench/implementations/mpi_peer.h"

#include <climits>
#include <cstring>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/named_values.h"
#include "collectives/transport/mpi/mpi_datatypes.h"

namespace kcoll {
namespace bench {
namespace {

absl::Status Check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return absl::OkStatus();
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return absl::InternalError(absl::StrCat(what, " failed: ", std::string(text, len)));
}

// The blocking MPI function, or with `request` its nonblocking form (the same arguments and the request).
template <typename Blocking, typename Nonblocking, typename... Args>
absl::Status Issue(MPI_Request* request, Blocking blocking, Nonblocking nonblocking, const char* name, Args... args) {
  if (request == nullptr) return Check(blocking(args...), name);
  return Check(nonblocking(args..., request), name);
}

class MpiPeer final : public Implementation {
 public:
  MpiPeer(Collective collective, MPI_Comm comm) : collective_(collective), comm_(comm) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &nranks_);
  }

  std::string name() const override { return MpiCollectiveName(collective_); }
  std::string kind() const override { return "mpi"; }

  absl::Status Run(const Call& c) override { return Dispatch(c, nullptr); }

  absl::Status Start(const Call& c) override {
    requests_.assign(2, MPI_REQUEST_NULL);
    return Dispatch(c, requests_.data());
  }

  absl::Status Finish() override {
    if (requests_.empty()) return absl::FailedPreconditionError("no nonblocking call in flight");
    const absl::Status done = Check(MPI_Waitall(2, requests_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    requests_.clear();
    return done;
  }

  const void* Result(const Call& c) const override {
    if (c.in_place && (c.collective == Collective::kReduceScatter || c.collective == Collective::kReduceScatterV)) {
      return c.send;
    }
    return c.recv;
  }

 private:
  // The call through MPI's blocking collective, or with `request` (room for two) its nonblocking form.
  absl::Status Dispatch(const Call& c, MPI_Request* request) {
    const MPI_Datatype type = MpiDatatypeOf(c.type);
    MPI_Op op = MPI_OP_NULL;
    if (c.op.has_value()) {
      if (IsHalfPrecision(c.type)) {
        return absl::UnimplementedError(absl::StrCat("MPI has no ", DataTypeName(c.type), " reduction"));
      }
      const std::optional<MPI_Op> mpi_op = MpiOpOf(*c.op);
      if (!mpi_op.has_value()) {
        return absl::UnimplementedError(absl::StrCat("MPI has no ", ReduceOpName(*c.op), " reduction"));
      }
      op = *mpi_op;
    }
    if (c.layout.send_count > static_cast<size_t>(INT_MAX) || c.layout.recv_count > static_cast<size_t>(INT_MAX)) {
      return absl::UnimplementedError("more than INT_MAX elements for an MPI call");
    }
    const int count = static_cast<int>(c.layout.count);
    const void* send = c.in_place ? MPI_IN_PLACE : c.send;
    const bool root = rank_ == c.root;
    switch (c.collective) {
      case Collective::kAllReduce:
        return Issue(request, MPI_Allreduce, MPI_Iallreduce, "MPI_Allreduce", send, c.recv, count, type, op, comm_);
      case Collective::kReduceScatter:
        // In place, MPI reads the whole input from recvbuf and leaves the block at its start.
        return Issue(request, MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block, "MPI_Reduce_scatter_block", send,
                     c.in_place ? const_cast<void*>(c.send) : c.recv, count, type, op, comm_);
      case Collective::kAllGather:
        return Issue(request, MPI_Allgather, MPI_Iallgather, "MPI_Allgather", send, count, type, c.recv, count, type,
                     comm_);
      case Collective::kBroadcast:
        if (!c.in_place && root && count > 0) std::memcpy(c.recv, c.send, c.layout.count * DataTypeSize(c.type));
        return Issue(request, MPI_Bcast, MPI_Ibcast, "MPI_Bcast", c.recv, count, type, c.root, comm_);
      case Collective::kReduce:
        return Issue(request, MPI_Reduce, MPI_Ireduce, "MPI_Reduce", c.in_place && !root ? c.send : send, c.recv, count,
                     type, op, c.root, comm_);
      case Collective::kAllToAll:
        return Issue(request, MPI_Alltoall, MPI_Ialltoall, "MPI_Alltoall", send, count, type, c.recv, count, type,
                     comm_);
      case Collective::kGather:
        return Issue(request, MPI_Gather, MPI_Igather, "MPI_Gather", c.in_place && !root ? c.send : send, count, type,
                     c.recv, count, type, c.root, comm_);
      case Collective::kScatter:
        return Issue(request, MPI_Scatter, MPI_Iscatter, "MPI_Scatter", c.send, count, type,
                     c.in_place && root ? MPI_IN_PLACE : c.recv, count, type, c.root, comm_);
      case Collective::kSendRecv: {
        const int next = (rank_ + 1) % nranks_, prev = (rank_ - 1 + nranks_) % nranks_;
        if (request != nullptr) {
          if (c.in_place) return absl::UnimplementedError("MPI has no nonblocking MPI_Sendrecv_replace");
          absl::Status posted = Check(MPI_Irecv(c.recv, count, type, prev, 0, comm_, &request[0]), "MPI_Irecv");
          if (!posted.ok()) return posted;
          return Check(MPI_Isend(c.send, count, type, next, 0, comm_, &request[1]), "MPI_Isend");
        }
        if (c.in_place) {
          return Check(MPI_Sendrecv_replace(c.recv, count, type, next, 0, prev, 0, comm_, MPI_STATUS_IGNORE),
                       "MPI_Sendrecv_replace");
        }
        return Check(MPI_Sendrecv(c.send, count, type, next, 0, c.recv, count, type, prev, 0, comm_, MPI_STATUS_IGNORE),
                     "MPI_Sendrecv");
      }
      case Collective::kBarrier:
        return Issue(request, MPI_Barrier, MPI_Ibarrier, "MPI_Barrier", comm_);
      case Collective::kAllGatherV:
      case Collective::kAllToAllV:
      case Collective::kReduceScatterV:
      case Collective::kGatherV:
      case Collective::kScatterV: {
        // Equal counts, the layout of the kcoll rows (Communicator::Call); members, as a nonblocking call reads them
        // until it completed.
        counts_.assign(nranks_, count);
        displs_.resize(nranks_);
        for (int j = 0; j < nranks_; ++j) displs_[j] = j * count;
        const std::vector<int>& counts = counts_;
        const std::vector<int>& displs = displs_;
        if (c.collective == Collective::kAllGatherV) {
          return Issue(request, MPI_Allgatherv, MPI_Iallgatherv, "MPI_Allgatherv", send, count, type, c.recv,
                       counts.data(), displs.data(), type, comm_);
        }
        if (c.collective == Collective::kReduceScatterV) {
          // In place, MPI reads the whole input from recvbuf and leaves the block at its start.
          return Issue(request, MPI_Reduce_scatter, MPI_Ireduce_scatter, "MPI_Reduce_scatter", send,
                       c.in_place ? const_cast<void*>(c.send) : c.recv, counts.data(), type, op, comm_);
        }
        if (c.collective == Collective::kGatherV) {
          return Issue(request, MPI_Gatherv, MPI_Igatherv, "MPI_Gatherv", c.in_place && !root ? c.send : send, count,
                       type, c.recv, counts.data(), displs.data(), type, c.root, comm_);
        }
        if (c.collective == Collective::kScatterV) {
          return Issue(request, MPI_Scatterv, MPI_Iscatterv, "MPI_Scatterv", c.send, counts.data(), displs.data(), type,
                       c.in_place && root ? MPI_IN_PLACE : c.recv, count, type, c.root, comm_);
        }
        return Issue(request, MPI_Alltoallv, MPI_Ialltoallv, "MPI_Alltoallv", send, counts.data(), displs.data(), type,
                     c.recv, counts.data(), displs.data(), type, comm_);
      }
      case Collective::kScan:
        return Issue(request, MPI_Scan, MPI_Iscan, "MPI_Scan", send, c.recv, count, type, op, comm_);
      case Collective::kExScan:
        return Issue(request, MPI_Exscan, MPI_Iexscan, "MPI_Exscan", send, c.recv, count, type, op, comm_);
    }
    return absl::InvalidArgumentError("invalid collective");
  }

  Collective collective_;
  MPI_Comm comm_;
  int rank_ = 0;
  int nranks_ = 1;
  std::vector<int> counts_, displs_;  // the v-collectives' arrays
  std::vector<MPI_Request> requests_;
};

}  // namespace

std::string MpiCollectiveName(Collective collective) {
  static constexpr NamedValue<Collective> kMpiNames[] = {{Collective::kAllReduce, "MPI_Allreduce"},
                                                         {Collective::kReduceScatter, "MPI_Reduce_scatter_block"},
                                                         {Collective::kAllGather, "MPI_Allgather"},
                                                         {Collective::kBroadcast, "MPI_Bcast"},
                                                         {Collective::kReduce, "MPI_Reduce"},
                                                         {Collective::kAllToAll, "MPI_Alltoall"},
                                                         {Collective::kGather, "MPI_Gather"},
                                                         {Collective::kScatter, "MPI_Scatter"},
                                                         {Collective::kSendRecv, "MPI_Sendrecv"},
                                                         {Collective::kBarrier, "MPI_Barrier"},
                                                         {Collective::kScan, "MPI_Scan"},
                                                         {Collective::kExScan, "MPI_Exscan"},
                                                         {Collective::kAllGatherV, "MPI_Allgatherv"},
                                                         {Collective::kAllToAllV, "MPI_Alltoallv"},
                                                         {Collective::kReduceScatterV, "MPI_Reduce_scatter"},
                                                         {Collective::kGatherV, "MPI_Gatherv"},
                                                         {Collective::kScatterV, "MPI_Scatterv"}};
  return std::string(NameIn(kMpiNames, collective, "MPI_?"));
}

std::unique_ptr<Implementation> MakeMpiPeer(Collective collective, MPI_Comm comm) {
  return std::make_unique<MpiPeer>(collective, comm);
}

}  // namespace bench
}  // namespace kcoll
