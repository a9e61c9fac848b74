// What every MPI collective of the library does first and last: whether kcoll takes the call (Take, ReductionOf,
// NegativeCount, each counting a forwarded call with its reason) and how its result reaches MPI (Done), and the
// errors of arguments kcoll cannot describe.
#ifndef KCOLL_MPI_DROP_IN_CALL_ROUTE_H_
#define KCOLL_MPI_DROP_IN_CALL_ROUTE_H_

#include <mpi.h>

#include <cstddef>
#include <optional>

#include "absl/status/status.h"
#include "base/types.h"
#include "collectives/communicator.h"
#include "mpi_drop_in/call_stats.h"
#include "mpi_drop_in/comm_registry.h"
#include "mpi_drop_in/errors.h"

namespace kcoll::drop_in {

// kcoll's communicator for a call of `function` on `comm`; null (the call counted as forwarded, with the reason)
// when the call goes to MPI. Collective over `comm` at its first call (it creates the communicator).
Communicator* Take(MpiFunction function, MPI_Comm comm);
// The same with the route `route_of` gives (comm_registry.h: RouteOf, or RouteIfMade, which makes no communicator).
Communicator* TakeOnRoute(MpiFunction function, MPI_Comm comm, Route (*route_of)(MPI_Comm));

// A reduction's kcoll type and op; nullopt (counted as forwarded) when kcoll has no such reduction.
struct Reduction {
  DataType type;
  ReduceOp op;
};
std::optional<Reduction> ReductionOf(MpiFunction function, MPI_Datatype datatype, MPI_Op op);

// Take and ReductionOf in one, for the reductions: kcoll's communicator for a call of `function` on `comm` with its
// reduction in *reduction, or null (counted as forwarded, with the reason). The last (communicator, datatype, op)
// this thread ran on kcoll is remembered, so a program that repeats one call (a solver's dot product) finds its route
// with a few comparisons.
Communicator* TakeReduction(MpiFunction function, MPI_Comm comm, MPI_Datatype datatype, MPI_Op op,
                            Reduction* reduction);

// True (counted as forwarded: MPI reports the error) for a negative count.
bool ForwardNegativeCount(MpiFunction function);  // counts it; true
inline bool NegativeCount(MpiFunction function, int count) { return count < 0 && ForwardNegativeCount(function); }

// Counts the call as run on kcoll and returns its MPI result (through `comm`'s error handler when it failed).
inline int Done(MpiFunction function, MPI_Comm comm, const absl::Status& status) {
  CountOnKcoll(function);
  return status.ok() ? MPI_SUCCESS : ReportToMpi(comm, MpiFunctionName(function), status);
}

absl::Status SignatureMismatch(const char* function, size_t send_bytes, size_t recv_bytes);

// The error of a buffer this rank cannot describe (ByteBuffer::valid): `what` names the count and datatype.
absl::Status Undescribed(const char* function, const char* what);

inline char* At(void* base, size_t offset) { return static_cast<char*>(base) + offset; }

}  // namespace kcoll::drop_in

#endif  // KCOLL_MPI_DROP_IN_CALL_ROUTE_H_
