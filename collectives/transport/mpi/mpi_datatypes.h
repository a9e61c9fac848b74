// kcoll's element types and reductions as MPI names them, for code that hands kcoll's buffers to MPI's own
// collectives: the benchmarks' MPI peer and the tests' vendor reference. MPI has no 16-bit float type (halves are
// moved as 16-bit words and cannot be reduced by MPI) and no average.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_MPI_MPI_DATATYPES_H_
#define KCOLL_COLLECTIVES_TRANSPORT_MPI_MPI_DATATYPES_H_

#include <mpi.h>

#include <optional>

#include "base/types.h"

namespace kcoll {

inline bool IsHalfPrecision(DataType type) { return type == DataType::kFloat16 || type == DataType::kBfloat16; }

// The MPI type of one element; 16-bit floats as MPI_UINT16_T (their bits, for moving them).
inline MPI_Datatype MpiDatatypeOf(DataType type) {
  switch (type) {
    case DataType::kInt8:
      return MPI_INT8_T;
    case DataType::kUint8:
      return MPI_UINT8_T;
    case DataType::kInt32:
      return MPI_INT32_T;
    case DataType::kUint32:
      return MPI_UINT32_T;
    case DataType::kInt64:
      return MPI_INT64_T;
    case DataType::kUint64:
      return MPI_UINT64_T;
    case DataType::kFloat32:
      return MPI_FLOAT;
    case DataType::kFloat64:
      return MPI_DOUBLE;
    case DataType::kFloat16:
    case DataType::kBfloat16:
      return MPI_UINT16_T;
  }
  return MPI_DATATYPE_NULL;
}

// The MPI reduction; none for kAvg.
inline std::optional<MPI_Op> MpiOpOf(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return MPI_SUM;
    case ReduceOp::kProd:
      return MPI_PROD;
    case ReduceOp::kMin:
      return MPI_MIN;
    case ReduceOp::kMax:
      return MPI_MAX;
    case ReduceOp::kAvg:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_MPI_MPI_DATATYPES_H_
