// AllReduce by the MPI library's own collective (kVendor), on a duplicate of the communicator's ranks. `auto` hands it
// the sizes at which the calibration measured MPI faster than kcoll's own choice on this machine (the profile's
// vendor_all_reduce_bytes: calibration/vendor_sizes.h), so that it never runs a path slower than MPI's there; a user
// names it (KCOLL_ALGO=all_reduce=vendor, CallOptions) to compare kcoll with its MPI call for call, or to fall back on
// it without leaving kcoll's API. None of kcoll's schedules runs: MPI picks its own algorithm, so a floating-point sum
// has MPI's bits, and `auto` takes it under numerics=fast only (a named algorithm honours fast only, as every named
// schedule: docs/numerics.md). avg is MPI's sum, divided by the ranks afterwards as after every schedule; float16 and
// bfloat16, which MPI cannot reduce, travel as 16-bit words combined by an MPI operation of kcoll's (each pair in
// float, rounded once, as a step of the ring rounds it). Without a timeout the call is the blocking MPI_Allreduce;
// under one, MPI_Iallreduce polled until it completes or nothing has completed for the timeout (DeadlineExceeded;
// MPI's collective cannot be taken back, so the communicator breaks).
#include <mpi.h>

#include <climits>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/kernels/host_reduce.h"
#include "collectives/transport/mpi/mpi_datatypes.h"
#include "collectives/transport/mpi/mpi_wait.h"

namespace kcoll {
namespace {

// MPI's user operations for the 16-bit floats: inout = in op inout, element by element.
template <DataType kType, ReduceOp kOp>
void HalfOp(void* in, void* inout, int* len, MPI_Datatype*) {
  const unsigned char* inputs[2] = {static_cast<const unsigned char*>(in), static_cast<const unsigned char*>(inout)};
  HostReduceInOrder(kOp, kType, inout, inputs, 2, static_cast<size_t>(*len));
}

template <DataType kType>
MPI_User_function* HalfOpOf(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kAvg:
      return &HalfOp<kType, ReduceOp::kSum>;
    case ReduceOp::kProd:
      return &HalfOp<kType, ReduceOp::kProd>;
    case ReduceOp::kMin:
      return &HalfOp<kType, ReduceOp::kMin>;
    case ReduceOp::kMax:
      return &HalfOp<kType, ReduceOp::kMax>;
  }
  return nullptr;
}

// The MPI operation for `op` on `type`: MPI's own, or (16-bit floats) one of kcoll's, created once per process and
// kept until MPI_Finalize frees it.
absl::StatusOr<MPI_Op> VendorOp(DataType type, ReduceOp op) {
  if (!IsHalfPrecision(type)) {
    if (op == ReduceOp::kAvg) return MPI_SUM;
    if (std::optional<MPI_Op> mpi = MpiOpOf(op)) return *mpi;
    return absl::InvalidArgumentError(absl::StrCat("all_reduce (vendor): op ", static_cast<int>(op), " is not valid"));
  }
  static std::mutex mu;
  static MPI_Op made[2][4] = {{MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL},
                              {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL}};
  MPI_User_function* fn =
      type == DataType::kFloat16 ? HalfOpOf<DataType::kFloat16>(op) : HalfOpOf<DataType::kBfloat16>(op);
  if (fn == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("all_reduce (vendor): op ", static_cast<int>(op), " is not valid"));
  }
  const int t = type == DataType::kFloat16 ? 0 : 1;
  const int o = op == ReduceOp::kProd ? 1 : op == ReduceOp::kMin ? 2 : op == ReduceOp::kMax ? 3 : 0;
  std::lock_guard<std::mutex> lock(mu);
  if (made[t][o] == MPI_OP_NULL && MPI_Op_create(fn, /*commute=*/1, &made[t][o]) != MPI_SUCCESS) {
    return absl::InternalError("all_reduce (vendor): MPI_Op_create failed for a 16-bit float operation");
  }
  return made[t][o];
}

}  // namespace

absl::Status VendorAllReduce(const CollectiveArgs& args, Resources& res) {
  if (res.vendor == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat("all_reduce (vendor): ", res.vendor_refusal));
  }
  if (args.count > static_cast<size_t>(INT_MAX)) {
    return absl::InvalidArgumentError(absl::StrCat("all_reduce (vendor): count ", args.count, " is over the ", INT_MAX,
                                                   " elements MPI takes in one call"));
  }
  if (args.count == 0) return absl::OkStatus();
  KCOLL_ASSIGN_OR_RETURN(MPI_Op op, VendorOp(args.type, args.op));
  const void* send = args.send == args.recv ? MPI_IN_PLACE : args.send;
  const int count = static_cast<int>(args.count);
  const MPI_Datatype type = MpiDatatypeOf(args.type);
  if (res.vendor->timeout == absl::InfiniteDuration()) {
    const int rc = PMPI_Allreduce(send, args.recv, count, type, op, res.vendor->comm);
    if (rc != MPI_SUCCESS)
      return absl::InternalError(absl::StrCat("all_reduce (vendor): MPI_Allreduce failed: ", MpiErrorString(rc)));
    return absl::OkStatus();
  }
  MPI_Request request = MPI_REQUEST_NULL;
  const int rc = PMPI_Iallreduce(send, args.recv, count, type, op, res.vendor->comm, &request);
  if (rc != MPI_SUCCESS) {
    return absl::InternalError(absl::StrCat("all_reduce (vendor): MPI_Iallreduce failed: ", MpiErrorString(rc)));
  }
  std::vector<int> scratch;
  KCOLL_ASSIGN_OR_RETURN(bool done, WaitForRequests(&request, 1, res.vendor->timeout, &scratch));
  if (!done) {
    return absl::DeadlineExceededError(
        absl::StrCat("all_reduce (vendor) on rank ", res.topology.rank, ": MPI_Iallreduce did not complete within ",
                     absl::FormatDuration(res.vendor->timeout), " (", res.vendor->timeout_source,
                     "); a peer stopped, died, or called another collective"));
  }
  return absl::OkStatus();
}

}  // namespace kcoll
