// Which MPI datatypes and ops kcoll's reductions take, and the names of those it does not (for the forwarding
// reasons printed at MPI_Finalize).
#ifndef KCOLL_MPI_DROP_IN_MPI_TYPES_H_
#define KCOLL_MPI_DROP_IN_MPI_TYPES_H_

#include <mpi.h>

#include <optional>
#include <string>

#include "base/types.h"

namespace kcoll::drop_in {

// kcoll's DataType for a predefined MPI datatype whose elements kcoll reduces (the C and Fortran integer and
// floating-point types of 1, 4 and 8 bytes, the sized ones, MPI_AINT, MPI_OFFSET and MPI_COUNT); nullopt for any other
// (16-bit integers, complex, long double, pair types, derived types).
std::optional<DataType> ReductionType(MPI_Datatype type);

// kcoll's ReduceOp for MPI_SUM, MPI_PROD, MPI_MIN and MPI_MAX; nullopt for any other (the logical and bitwise
// ops, MINLOC/MAXLOC, REPLACE, NO_OP, user ops).
std::optional<ReduceOp> ReductionOp(MPI_Op op);

// "MPI_SHORT", "a derived datatype": how a forwarding reason names a datatype.
std::string TypeName(MPI_Datatype type);
// "MPI_BAND", "a user op".
std::string OpName(MPI_Op op);

}  // namespace kcoll::drop_in

#endif  // KCOLL_MPI_DROP_IN_MPI_TYPES_H_
