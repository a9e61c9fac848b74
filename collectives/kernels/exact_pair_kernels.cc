#include "collectives/kernels/exact_pair_kernels.h"

#include "absl/strings/str_cat.h"

namespace kcoll {
namespace {

// The sums that become exact: sum and avg (a sum, divided afterwards) of floating-point data.
bool SumsExactly(ReduceOp op, DataType type) {
  const bool sum = op == ReduceOp::kSum || op == ReduceOp::kAvg;
  const bool floating = type == DataType::kFloat16 || type == DataType::kBfloat16 || type == DataType::kFloat32 ||
                        type == DataType::kFloat64;
  return sum && floating;
}

}  // namespace

absl::Status ExactPairKernels::Reduce(ReduceOp op, DataType type, void* dst, const void* a, const void* b, size_t n) {
  if (!SumsExactly(op, type)) return inner_.Reduce(op, type, dst, a, b, n);
  return inner_.ExactSumOfTwo(type, dst, a, b, n);
}

absl::Status ExactPairKernels::FoldInOrder(ReduceOp op, DataType type, void* dst, const void* contributions,
                                           size_t stride, size_t n, int terms) {
  if (!SumsExactly(op, type) || terms < 2) return inner_.FoldInOrder(op, type, dst, contributions, stride, n, terms);
  if (terms > 2) {
    return absl::InternalError(absl::StrCat("numerics=exact between two ranks: a schedule folded ", terms,
                                            " terms of one element, where an exact sum of two was expected"));
  }
  const void* second = static_cast<const char*>(contributions) + stride * DataTypeSize(type);
  return inner_.ExactSumOfTwo(type, dst, contributions, second, n);
}

}  // namespace kcoll
