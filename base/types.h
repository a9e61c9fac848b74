// Element types and reduction operators, as NCCL names them.
#ifndef KCOLL_BASE_TYPES_H_
#define KCOLL_BASE_TYPES_H_

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kcoll {

enum class DataType {
  kInt8,
  kUint8,
  kInt32,
  kUint32,
  kInt64,
  kUint64,
  kFloat16,   // IEEE binary16, 2 bytes in memory on every backend
  kBfloat16,  // bfloat16, 2 bytes in memory on every backend
  kFloat32,
  kFloat64,
};

enum class ReduceOp {
  kSum,
  kProd,
  kMin,
  kMax,
  kAvg,  // NCCL's ncclAvg: the sum, divided by the number of ranks at the end
};

const std::vector<DataType>& AllDataTypes();
const std::vector<ReduceOp>& AllReduceOps();

size_t DataTypeSize(DataType type);
bool IsValid(DataType type);
bool IsValid(ReduceOp op);

// "int8", "uint8", "int32", ..., "float16", "bfloat16", "float32", "float64"; "sum", "prod", "min", "max", "avg".
absl::string_view DataTypeName(DataType type);
absl::string_view ReduceOpName(ReduceOp op);
// Also accepts nccl-tests' spellings ("float" = float32, "half" = float16, "double" = float64, "int" = int32, ...).
absl::StatusOr<DataType> ParseDataType(absl::string_view text);
absl::StatusOr<ReduceOp> ParseReduceOp(absl::string_view text);

}  // namespace kcoll

#endif  // KCOLL_BASE_TYPES_H_
