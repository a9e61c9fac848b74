#include "mpi_drop_in/mpi_types.h"

#include <climits>
#include <utility>
#include <vector>

namespace kcoll::drop_in {
namespace {

// The kcoll integer type of `bytes` bytes and that signedness, if kcoll has one.
std::optional<DataType> IntegerOf(size_t bytes, bool is_signed) {
  switch (bytes) {
    case 1:
      return is_signed ? DataType::kInt8 : DataType::kUint8;
    case 4:
      return is_signed ? DataType::kInt32 : DataType::kUint32;
    case 8:
      return is_signed ? DataType::kInt64 : DataType::kUint64;
    default:
      return std::nullopt;
  }
}

std::optional<DataType> FloatOf(size_t bytes) {
  if (bytes == 4) return DataType::kFloat32;
  if (bytes == 8) return DataType::kFloat64;
  return std::nullopt;
}

using TypeTable = std::vector<std::pair<MPI_Datatype, std::optional<DataType>>>;

// Built on first use, after MPI_Init: MPI's predefined handles are not constants in every MPI (Open MPI's are
// addresses), and a type whose size in this MPI is not what the table assumes (a Fortran type of another kind) is
// left to MPI. The commonest types come first.
const TypeTable& Types() {
  static const TypeTable* table = [] {
    auto* t = new TypeTable{
        {MPI_DOUBLE, FloatOf(sizeof(double))},
        {MPI_INT, IntegerOf(sizeof(int), true)},
        {MPI_FLOAT, FloatOf(sizeof(float))},
        {MPI_LONG, IntegerOf(sizeof(long), true)},
        {MPI_LONG_LONG_INT, IntegerOf(sizeof(long long), true)},
        {MPI_LONG_LONG, IntegerOf(sizeof(long long), true)},
        {MPI_UNSIGNED, IntegerOf(sizeof(unsigned), false)},
        {MPI_UNSIGNED_LONG, IntegerOf(sizeof(unsigned long), false)},
        {MPI_UNSIGNED_LONG_LONG, IntegerOf(sizeof(unsigned long long), false)},
        {MPI_DOUBLE_PRECISION, FloatOf(8)},
        {MPI_INTEGER, IntegerOf(4, true)},
        {MPI_REAL, FloatOf(4)},
        {MPI_SIGNED_CHAR, IntegerOf(1, true)},
        {MPI_UNSIGNED_CHAR, IntegerOf(1, false)},
        {MPI_INT8_T, DataType::kInt8},
        {MPI_UINT8_T, DataType::kUint8},
        {MPI_INT32_T, DataType::kInt32},
        {MPI_UINT32_T, DataType::kUint32},
        {MPI_INT64_T, DataType::kInt64},
        {MPI_UINT64_T, DataType::kUint64},
        {MPI_INTEGER4, DataType::kInt32},
        {MPI_INTEGER8, DataType::kInt64},
        {MPI_REAL4, DataType::kFloat32},
        {MPI_REAL8, DataType::kFloat64},
        {MPI_AINT, IntegerOf(sizeof(MPI_Aint), true)},
        {MPI_OFFSET, IntegerOf(sizeof(MPI_Offset), true)},
        {MPI_COUNT, IntegerOf(sizeof(MPI_Count), true)},
    };
    for (auto& [handle, type] : *t) {
      int size = 0;
      if (handle == MPI_DATATYPE_NULL || PMPI_Type_size(handle, &size) != MPI_SUCCESS ||
          (type.has_value() && static_cast<size_t>(size) != DataTypeSize(*type))) {
        type = std::nullopt;
      }
    }
    return t;
  }();
  return *table;
}

}  // namespace

std::optional<DataType> ReductionType(MPI_Datatype type) {
  if (type == MPI_DATATYPE_NULL) return std::nullopt;
  for (const auto& [handle, kcoll_type] : Types()) {
    if (handle == type) return kcoll_type;
  }
  return std::nullopt;
}

std::optional<ReduceOp> ReductionOp(MPI_Op op) {
  if (op == MPI_SUM) return ReduceOp::kSum;
  if (op == MPI_PROD) return ReduceOp::kProd;
  if (op == MPI_MIN) return ReduceOp::kMin;
  if (op == MPI_MAX) return ReduceOp::kMax;
  return std::nullopt;
}

std::string TypeName(MPI_Datatype type) {
  char name[MPI_MAX_OBJECT_NAME] = {0};
  int length = 0;
  if (type != MPI_DATATYPE_NULL && PMPI_Type_get_name(type, name, &length) == MPI_SUCCESS && length > 0) {
    return std::string(name, static_cast<size_t>(length));
  }
  return "a derived datatype";
}

std::string OpName(MPI_Op op) {
  static const auto* names = new std::vector<std::pair<MPI_Op, const char*>>{
      {MPI_MAX, "MPI_MAX"},         {MPI_MIN, "MPI_MIN"},     {MPI_SUM, "MPI_SUM"},       {MPI_PROD, "MPI_PROD"},
      {MPI_LAND, "MPI_LAND"},       {MPI_BAND, "MPI_BAND"},   {MPI_LOR, "MPI_LOR"},       {MPI_BOR, "MPI_BOR"},
      {MPI_LXOR, "MPI_LXOR"},       {MPI_BXOR, "MPI_BXOR"},   {MPI_MINLOC, "MPI_MINLOC"}, {MPI_MAXLOC, "MPI_MAXLOC"},
      {MPI_REPLACE, "MPI_REPLACE"}, {MPI_NO_OP, "MPI_NO_OP"},
  };
  for (const auto& [handle, name] : *names) {
    if (handle == op) return name;
  }
  return "a user op";
}

}  // namespace kcoll::drop_in
