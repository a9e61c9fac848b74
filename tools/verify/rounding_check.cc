#include "tools/verify/rounding_check.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "base/half.h"
#include "bench/data/rounding_data.h"
#include "collectives/kernels/element_ops.h"
#include "collectives/kernels/exact_sum.h"
#include "collectives/kernels/reference_values.h"

namespace kcoll {
namespace verify {
namespace {

template <class T>
constexpr bool kHalf = std::is_same_v<T, Float16> || std::is_same_v<T, Bfloat16>;

// The unit roundoff of T: 2^-p for a p-bit significand.
template <class T>
double UnitRoundoff() {
  if constexpr (std::is_same_v<T, Float16>) return std::ldexp(1.0, -11);
  if constexpr (std::is_same_v<T, Bfloat16>) return std::ldexp(1.0, -8);
  if constexpr (std::is_same_v<T, float>) return std::ldexp(1.0, -24);
  return std::ldexp(1.0, -53);
}

// The rank-order fold: A is float for 16-bit types, else T.
template <class T>
T RankOrderFold(ReduceOp op, const std::vector<T>& terms, int m) {
  using A = std::conditional_t<kHalf<T>, float, T>;
  A acc = static_cast<A>(reference::Decode<T>(terms[0]));
  for (int k = 1; k < m; ++k) {
    const A x = static_cast<A>(reference::Decode<T>(terms[k]));
    switch (op) {
      case ReduceOp::kSum:
      case ReduceOp::kAvg:
        acc = acc + x;
        break;
      case ReduceOp::kProd:
        acc = acc * x;
        break;
      case ReduceOp::kMin:
        acc = x < acc ? x : acc;
        break;
      case ReduceOp::kMax:
        acc = acc < x ? x : acc;
        break;
    }
  }
  return reference::Encode<T>(static_cast<double>(acc));
}

// avg: the sum, rounded to T, divided by m once (16-bit types through float).
template <class T>
T DivideOnce(T sum, int m) {
  if constexpr (kHalf<T>) {
    return reference::Encode<T>(static_cast<double>(static_cast<float>(reference::Decode<T>(sum)) / m));
  } else {
    return static_cast<T>(sum / static_cast<T>(m));
  }
}

template <class T>
bool SameBits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

struct TypedCheck {
  const bench::CheckSpec& spec;
  Numerics numerics;
  const void* result;
  std::optional<RoundingMismatch>* mismatch;

  template <class T>
  void operator()() const {
    if constexpr (std::is_integral_v<T>) {
      return;
    } else {
      const int n = spec.nranks;
      const int m = ReducedRanks(spec.collective, spec.rank, n);
      const size_t count = spec.layout.count;
      const bool scattered =
          spec.collective == Collective::kReduceScatter || spec.collective == Collective::kReduceScatterV;
      const size_t base = scattered ? static_cast<size_t>(spec.rank) * count : 0;
      // Every rank's send data, as that rank filled it.
      std::vector<std::vector<char>> inputs(n);
      for (int s = 0; s < n; ++s) inputs[s] = bench::RoundingSensitiveInput(spec, s);
      const ReduceOp op = *spec.op;
      const T* got = static_cast<const T*>(result);
      std::vector<T> terms(n);
      for (size_t k = 0; k < count; ++k) {
        for (int s = 0; s < n; ++s) terms[s] = reinterpret_cast<const T*>(inputs[s].data())[base + k];
        RoundingMismatch wrong{k, 0, reference::Decode<T>(got[k]), 0};
        const bool sum = op == ReduceOp::kSum || op == ReduceOp::kAvg;
        if (numerics == Numerics::kFast && sum) {
          long double s = 0, magnitude = 0;
          for (int j = 0; j < m; ++j) {
            const long double x = reference::Decode<T>(terms[j]);
            s += x;
            magnitude += std::fabs(x);
          }
          const double u = UnitRoundoff<T>();
          double bound = static_cast<double>((m - 1) * u * magnitude + u * std::fabs(s)) +
                         static_cast<double>(magnitude) * std::ldexp(1.0, -60);
          if (op == ReduceOp::kAvg) {
            s /= m;
            bound = bound / m + u * static_cast<double>(std::fabs(s));
          }
          if (!(std::fabs(static_cast<long double>(wrong.got) - s) <= bound)) {
            wrong.expected = static_cast<double>(s);
            wrong.bound = bound;
            *mismatch = wrong;
            return;
          }
          continue;
        }
        T expected;
        if (numerics == Numerics::kExact && sum) {
          expected = ExactSumOfTerms(terms.data(), 1, n, m);
        } else {
          expected = RankOrderFold(op, terms, m);
        }
        if (op == ReduceOp::kAvg) expected = DivideOnce(expected, m);
        if (!SameBits(expected, got[k])) {
          wrong.expected = reference::Decode<T>(expected);
          *mismatch = wrong;
          return;
        }
      }
    }
  }
};

}  // namespace

bool RoundingChecked(ReduceOp op, Numerics numerics) { return !(numerics == Numerics::kFast && op == ReduceOp::kProd); }

std::optional<RoundingMismatch> CheckRounding(const bench::CheckSpec& spec, Numerics numerics, const void* result) {
  std::optional<RoundingMismatch> mismatch;
  if (!bench::HasResult(spec) || !spec.op.has_value() || !RoundingChecked(*spec.op, numerics)) return mismatch;
  DispatchDataType(spec.type, TypedCheck{spec, numerics, result, &mismatch});
  return mismatch;
}

}  // namespace verify
}  // namespace kcoll
