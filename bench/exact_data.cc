#include "bench/exact_data.h"

#include <cstring>
#include <type_traits>

#include "collectives/kernels/element_ops.h"
#include "collectives/kernels/half.h"

namespace kcoll {
namespace bench {
namespace {

bool IsUnsigned(DataType type) {
  return type == DataType::kUint8 || type == DataType::kUint32 || type == DataType::kUint64;
}

bool IsInteger(DataType type) {
  return type != DataType::kFloat16 && type != DataType::kBfloat16 && type != DataType::kFloat32 &&
         type != DataType::kFloat64;
}

template <class T>
T Encode(double v) {
  if constexpr (std::is_same<T, Float16>::value) {
    return ToFloat16(static_cast<float>(v));
  } else if constexpr (std::is_same<T, Bfloat16>::value) {
    return ToBfloat16(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

double ExpectedReduction(const CheckSpec& spec, size_t i) {
  const ReduceOp op = *spec.op;
  double acc = InputValue(spec, 0, i);
  for (int r = 1; r < spec.nranks; ++r) {
    const double v = InputValue(spec, r, i);
    switch (op) {
      case ReduceOp::kSum:
      case ReduceOp::kAvg:
        acc += v;
        break;
      case ReduceOp::kProd:
        acc *= v;
        break;
      case ReduceOp::kMin:
        acc = v < acc ? v : acc;
        break;
      case ReduceOp::kMax:
        acc = v > acc ? v : acc;
        break;
    }
  }
  if (op == ReduceOp::kAvg) {
    acc = IsInteger(spec.type) ? static_cast<double>(static_cast<int64_t>(acc) / spec.nranks) : acc / spec.nranks;
  }
  return acc;
}

// Expected element j of this rank's result buffer.
double Expected(const CheckSpec& spec, size_t j) {
  const size_t count = spec.layout.count;
  const int n = spec.nranks, rank = spec.rank;
  switch (spec.collective) {
    case Collective::kAllReduce:
    case Collective::kReduce:
      return ExpectedReduction(spec, j);
    case Collective::kReduceScatter:
      return ExpectedReduction(spec, static_cast<size_t>(rank) * count + j);
    case Collective::kAllGather:
    case Collective::kGather:
      return InputValue(spec, static_cast<int>(j / count), j % count);
    case Collective::kBroadcast:
      return InputValue(spec, spec.root, j);
    case Collective::kAllToAll:
      // Block `from` of my result is block `rank` of rank `from`'s input.
      return InputValue(spec, static_cast<int>(j / count), static_cast<size_t>(rank) * count + j % count);
    case Collective::kScatter:
      return InputValue(spec, spec.root, static_cast<size_t>(rank) * count + j);
    case Collective::kSendRecv:
      return InputValue(spec, (rank - 1 + n) % n, j);
    case Collective::kBarrier:
      return 0;
  }
  return 0;
}

size_t ResultCount(const CheckSpec& spec) {
  switch (spec.collective) {
    case Collective::kReduce:
    case Collective::kBroadcast:
    case Collective::kAllReduce:
    case Collective::kSendRecv:
      return spec.layout.count;
    default:
      return spec.layout.recv_count;
  }
}

struct TypedFill {
  const CheckSpec& spec;
  void* buffer;
  size_t first, count;
  template <class T>
  void operator()() const {
    T* out = static_cast<T*>(buffer);
    for (size_t k = 0; k < count; ++k) out[k] = Encode<T>(InputValue(spec, spec.rank, first + k));
  }
};

struct TypedCount {
  const CheckSpec& spec;
  const void* result;
  int64_t* wrong;
  template <class T>
  void operator()() const {
    const T* got = static_cast<const T*>(result);
    const size_t n = ResultCount(spec);
    int64_t bad = 0;
    for (size_t j = 0; j < n; ++j) {
      const T want = Encode<T>(Expected(spec, j));
      if (std::memcmp(&want, &got[j], sizeof(T)) != 0) ++bad;
    }
    *wrong = bad;
  }
};

}  // namespace

double InputValue(const CheckSpec& spec, int rank, size_t i) {
  const bool is_unsigned = IsUnsigned(spec.type);
  const size_t r = static_cast<size_t>(rank);
  if (!spec.op.has_value()) {
    const double v = static_cast<double>((r * 37 + i * 11) % 101);
    return is_unsigned ? v : v - 50;
  }
  switch (*spec.op) {
    case ReduceOp::kSum:
    case ReduceOp::kAvg:
      return is_unsigned ? static_cast<double>((i + r) % 2) : static_cast<double>((i * 3 + r * 5) % 3) - 1;
    case ReduceOp::kProd:
      // Among ranks 0..7 exactly one has (i + r) % 8 == 0 and one has == 3: products stay in {-2, -1, 1, 2}.
      if (r < 8 && (i + r) % 8 == 0) return 2;
      if (r < 8 && (i + r) % 8 == 3 && !is_unsigned) return -1;
      return 1;
    case ReduceOp::kMin:
    case ReduceOp::kMax:
      return is_unsigned ? static_cast<double>((i * 3 + r * 5) % 8) : static_cast<double>((i * 3 + r * 5) % 7) - 3;
  }
  return 0;
}

void FillInput(const CheckSpec& spec, void* buffer, size_t first, size_t count) {
  DispatchDataType(spec.type, TypedFill{spec, buffer, first, count});
}

void FillPoison(void* buffer, size_t bytes) { std::memset(buffer, 0xA5, bytes); }

bool HasResult(const CheckSpec& spec) {
  if (spec.collective == Collective::kReduce || spec.collective == Collective::kGather) return spec.rank == spec.root;
  return true;
}

int64_t CountWrong(const CheckSpec& spec, const void* result) {
  if (!HasResult(spec)) return 0;
  int64_t wrong = 0;
  DispatchDataType(spec.type, TypedCount{spec, result, &wrong});
  return wrong;
}

}  // namespace bench
}  // namespace kcoll
