// The vendor MPI's answer for the same inputs, to check kcoll's results against: MPI datatypes and ops for kcoll's
// types and ops. 16-bit floats have no MPI type: their exact inputs are reduced as float and rounded back.
#ifndef KCOLL_TESTS_MPI_REFERENCE_H_
#define KCOLL_TESTS_MPI_REFERENCE_H_

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "collectives/types.h"
#include "tests/exact_values.h"

namespace kcoll {
namespace testing {

inline MPI_Datatype MpiTypeOf(DataType type) {
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
      return MPI_FLOAT;  // computed on float copies
  }
  return MPI_DATATYPE_NULL;
}

// MPI has no average: kAvg is MPI_SUM, divided afterwards.
inline MPI_Op MpiOpOf(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kAvg:
      return MPI_SUM;
    case ReduceOp::kProd:
      return MPI_PROD;
    case ReduceOp::kMin:
      return MPI_MIN;
    case ReduceOp::kMax:
      return MPI_MAX;
  }
  return MPI_OP_NULL;
}

inline bool IsHalf(DataType type) { return type == DataType::kFloat16 || type == DataType::kBfloat16; }

// MPI_Allreduce of this rank's exact inputs (ExactInput), returned encoded in `type`, so it can be compared byte
// for byte with kcoll's result.
inline std::vector<char> MpiAllReduceOfExactInputs(DataType type, ReduceOp op, size_t count, MPI_Comm comm) {
  int rank = 0, nranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  const size_t elem = DataTypeSize(type);
  const size_t mpi_elem = IsHalf(type) ? sizeof(float) : elem;
  std::vector<char> in(count * mpi_elem), out(count * mpi_elem);
  for (size_t i = 0; i < count; ++i) {
    const double v = ExactInput(type, op, rank, i);
    if (IsHalf(type)) {
      reinterpret_cast<float*>(in.data())[i] = static_cast<float>(v);
    } else {
      EncodeAt(type, in.data(), i, v);
    }
  }
  MPI_Allreduce(in.data(), out.data(), static_cast<int>(count), MpiTypeOf(type), MpiOpOf(op), comm);
  std::vector<char> result(count * elem);
  for (size_t i = 0; i < count; ++i) {
    double v = IsHalf(type) ? reinterpret_cast<float*>(out.data())[i] : DecodeAt(type, out.data(), i);
    if (op == ReduceOp::kAvg) v = IsInteger(type) ? static_cast<double>(static_cast<int64_t>(v) / nranks) : v / nranks;
    EncodeAt(type, result.data(), i, v);
  }
  return result;
}

}  // namespace testing
}  // namespace kcoll

#endif  // KCOLL_TESTS_MPI_REFERENCE_H_
