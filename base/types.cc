#include "base/types.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "base/named_values.h"

namespace kcoll {
namespace {

struct TypeInfo {
  DataType type;
  absl::string_view name;
  size_t size;
};

constexpr TypeInfo kTypes[] = {
    {DataType::kInt8, "int8", 1},       {DataType::kUint8, "uint8", 1},       {DataType::kInt32, "int32", 4},
    {DataType::kUint32, "uint32", 4},   {DataType::kInt64, "int64", 8},       {DataType::kUint64, "uint64", 8},
    {DataType::kFloat16, "float16", 2}, {DataType::kBfloat16, "bfloat16", 2}, {DataType::kFloat32, "float32", 4},
    {DataType::kFloat64, "float64", 8},
};

struct Alias {
  absl::string_view alias;
  DataType type;
};

// nccl-tests' and C's spellings.
constexpr Alias kTypeAliases[] = {
    {"char", DataType::kInt8},     {"int", DataType::kInt32},     {"uint", DataType::kUint32},
    {"half", DataType::kFloat16},  {"float", DataType::kFloat32}, {"double", DataType::kFloat64},
    {"bf16", DataType::kBfloat16}, {"fp16", DataType::kFloat16},  {"fp32", DataType::kFloat32},
    {"fp64", DataType::kFloat64},
};

constexpr absl::string_view kOpNames[] = {"sum", "prod", "min", "max", "avg"};

}  // namespace

const std::vector<DataType>& AllDataTypes() {
  static const auto* all = new std::vector<DataType>(ColumnOf(kTypes, &TypeInfo::type));
  return *all;
}

const std::vector<ReduceOp>& AllReduceOps() {
  static const auto* all =
      new std::vector<ReduceOp>{ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMin, ReduceOp::kMax, ReduceOp::kAvg};
  return *all;
}

bool IsValid(DataType type) {
  const int i = static_cast<int>(type);
  return i >= 0 && i < static_cast<int>(sizeof(kTypes) / sizeof(kTypes[0]));
}

bool IsValid(ReduceOp op) {
  const int i = static_cast<int>(op);
  return i >= 0 && i < static_cast<int>(sizeof(kOpNames) / sizeof(kOpNames[0]));
}

size_t DataTypeSize(DataType type) { return IsValid(type) ? kTypes[static_cast<int>(type)].size : 0; }

absl::string_view DataTypeName(DataType type) {
  return IsValid(type) ? kTypes[static_cast<int>(type)].name : "invalid";
}

absl::string_view ReduceOpName(ReduceOp op) { return IsValid(op) ? kOpNames[static_cast<int>(op)] : "invalid"; }

absl::StatusOr<DataType> ParseDataType(absl::string_view text) {
  for (const Alias& a : kTypeAliases) {
    if (absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(text), a.alias)) return a.type;
  }
  return ParseName(AllDataTypes(), DataTypeName, text, "data type");
}

absl::StatusOr<ReduceOp> ParseReduceOp(absl::string_view text) {
  return ParseName(AllReduceOps(), ReduceOpName, text, "reduce op");
}

}  // namespace kcoll
