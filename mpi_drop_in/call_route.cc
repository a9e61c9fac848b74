#include "mpi_drop_in/call_route.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "mpi_drop_in/comm_registry.h"
#include "mpi_drop_in/errors.h"
#include "mpi_drop_in/mpi_types.h"

namespace kcoll::drop_in {

Communicator* TakeOnRoute(MpiFunction function, MPI_Comm comm, Route (*route_of)(MPI_Comm)) {
  if (!DropInEnabled()) {
    CountForwarded(function, "KCOLL_MPI=off");
    return nullptr;
  }
  if (comm == MPI_COMM_NULL) {
    CountForwarded(function, "MPI_COMM_NULL");  // MPI reports the error
    return nullptr;
  }
  Route route = route_of(comm);
  if (route.kcoll == nullptr) CountForwarded(function, *route.forward_reason);
  return route.kcoll;
}

Communicator* Take(MpiFunction function, MPI_Comm comm) { return TakeOnRoute(function, comm, RouteOf); }

std::optional<Reduction> ReductionOf(MpiFunction function, MPI_Datatype datatype, MPI_Op op) {
  std::optional<DataType> type = ReductionType(datatype);
  if (!type.has_value()) {
    CountForwarded(function, absl::StrCat("type ", TypeName(datatype)));
    return std::nullopt;
  }
  std::optional<ReduceOp> kcoll_op = ReductionOp(op);
  if (!kcoll_op.has_value()) {
    const std::string name = OpName(op);
    CountForwarded(function, name == "a user op" ? name : absl::StrCat("op ", name));
    return std::nullopt;
  }
  return Reduction{*type, *kcoll_op};
}

namespace {

// The route of the last reduction this thread ran on kcoll. Only predefined datatypes and ops have a reduction, and
// their handles are never freed, so the handles identify them; RouteGeneration covers a communicator's handle reused.
struct LastReduction {
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Datatype datatype = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
  uint64_t generation = 0;
  Communicator* kcoll = nullptr;
  Reduction reduction{};
};
thread_local LastReduction last_reduction;

}  // namespace

Communicator* TakeReduction(MpiFunction function, MPI_Comm comm, MPI_Datatype datatype, MPI_Op op,
                            Reduction* reduction) {
  LastReduction& last = last_reduction;
  if (last.kcoll != nullptr && comm == last.comm && datatype == last.datatype && op == last.op &&
      last.generation == RouteGeneration()) {
    *reduction = last.reduction;
    return last.kcoll;
  }
  const std::optional<Reduction> found = ReductionOf(function, datatype, op);
  if (!found.has_value()) return nullptr;
  const uint64_t generation = RouteGeneration();
  Communicator* c = Take(function, comm);
  if (c == nullptr) return nullptr;
  last = LastReduction{comm, datatype, op, generation, c, *found};
  *reduction = *found;
  return c;
}

bool ForwardNegativeCount(MpiFunction function) {
  CountForwarded(function, "negative count");  // MPI reports the error
  return true;
}

absl::Status SignatureMismatch(const char* function, size_t send_bytes, size_t recv_bytes) {
  return absl::InvalidArgumentError(absl::StrCat(function, ": the send signature is ", send_bytes,
                                                 " bytes per rank and the receive signature ", recv_bytes,
                                                 " (they must be equal)"));
}

absl::Status Undescribed(const char* function, const char* what) {
  return absl::InvalidArgumentError(absl::StrCat(function, ": ", what,
                                                 ": a negative count, MPI_DATATYPE_NULL, or over INT_MAX elements of a "
                                                 "non-contiguous datatype"));
}

}  // namespace kcoll::drop_in
