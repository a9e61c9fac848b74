#include "bench/data/exact_data.h"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "collectives/kernels/element_ops.h"
#include "collectives/kernels/reference_values.h"

namespace kcoll {
namespace bench {
namespace {

bool IsUnsigned(DataType type) { return !reference::IsSigned(type); }

using reference::Encode;

// The reduction over ranks [0, ranks) of input element i.
double ExpectedReduction(const CheckSpec& spec, int ranks, size_t i) {
  return reference::ReduceOverRanks(spec.type, *spec.op, ranks, [&](int r) { return InputValue(spec, r, i); });
}

// Where a run of result elements comes from: one rank's inputs, or the reduction over ranks [0, k) (a source of
// ReductionOver(k)), starting at input element `base`.
struct Segment {
  size_t offset = 0;  // first result element
  size_t length = 0;
  int source = 0;   // a rank (>= 0), or ReductionOver(k)
  size_t base = 0;  // input index of the first element
};
constexpr int ReductionOver(int ranks) { return -ranks; }

std::vector<Segment> ResultSegments(const CheckSpec& spec) {
  const size_t count = spec.layout.count;
  const int n = spec.nranks, rank = spec.rank;
  const size_t r = static_cast<size_t>(rank);
  std::vector<Segment> out;
  const int kReduction = ReductionOver(n);
  switch (spec.collective) {
    case Collective::kAllReduce:
    case Collective::kReduce:
      out.push_back({0, count, kReduction, 0});
      break;
    case Collective::kReduceScatter:
    case Collective::kReduceScatterV:
      out.push_back({0, count, kReduction, r * count});
      break;
    case Collective::kAllGather:
    case Collective::kAllGatherV:
    case Collective::kGather:
    case Collective::kGatherV:
      for (int s = 0; s < n; ++s) out.push_back({static_cast<size_t>(s) * count, count, s, 0});
      break;
    case Collective::kBroadcast:
      out.push_back({0, count, spec.root, 0});
      break;
    case Collective::kAllToAll:
    case Collective::kAllToAllV:
      // Block s of my result is block `rank` of rank s's input.
      for (int s = 0; s < n; ++s) out.push_back({static_cast<size_t>(s) * count, count, s, r * count});
      break;
    case Collective::kScatter:
    case Collective::kScatterV:
      out.push_back({0, count, spec.root, r * count});
      break;
    case Collective::kSendRecv:
      out.push_back({0, count, (rank - 1 + n) % n, 0});
      break;
    case Collective::kScan:
      out.push_back({0, count, ReductionOver(rank + 1), 0});
      break;
    case Collective::kExScan:
      if (rank > 0) out.push_back({0, count, ReductionOver(rank), 0});
      break;
    case Collective::kBarrier:
      break;
  }
  return out;
}

// Inputs repeat along the index with this period (see InputValue), so a run of values is a table of one period
// repeated: filling and checking cost a table lookup per element.
size_t Period(const CheckSpec& spec) { return spec.op.has_value() ? kReductionPeriod : kMovementPeriod; }

double ValueAt(const CheckSpec& spec, int source, size_t i) {
  return source < 0 ? ExpectedReduction(spec, -source, i) : InputValue(spec, source, i);
}

// The encoded values of `source` at input indices base, base + 1, ... over one period (or `length` if shorter).
template <class T>
std::vector<T> Table(const CheckSpec& spec, int source, size_t base, size_t length) {
  std::vector<T> table(std::min(Period(spec), length));
  for (size_t k = 0; k < table.size(); ++k) table[k] = Encode<T>(ValueAt(spec, source, base + k));
  return table;
}

struct TypedFill {
  const CheckSpec& spec;
  void* buffer;
  size_t first, count;
  template <class T>
  void operator()() const {
    if (count == 0) return;
    const std::vector<T> table = Table<T>(spec, spec.rank, first, count);
    T* out = static_cast<T*>(buffer);
    for (size_t k = 0, t = 0; k < count; ++k) {
      out[k] = table[t];
      if (++t == table.size()) t = 0;
    }
  }
};

// Counts the wrong elements; with `first`, also records the first of them.
struct TypedCount {
  const CheckSpec& spec;
  const void* result;
  int64_t* wrong;
  std::optional<WrongElement>* first = nullptr;
  template <class T>
  void operator()() const {
    const T* got = static_cast<const T*>(result);
    int64_t bad = 0;
    for (const Segment& seg : ResultSegments(spec)) {
      if (seg.length == 0) continue;
      const std::vector<T> table = Table<T>(spec, seg.source, seg.base, seg.length);
      const T* g = got + seg.offset;
      for (size_t k = 0, t = 0; k < seg.length; ++k) {
        if (std::memcmp(&table[t], &g[k], sizeof(T)) != 0) {
          if (first != nullptr && !first->has_value()) {
            *first = WrongElement{seg.offset + k, reference::Decode<T>(table[t]), reference::Decode<T>(g[k])};
          }
          ++bad;
        }
        if (++t == table.size()) t = 0;
      }
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
      return is_unsigned ? static_cast<double>((i + r) % 2) : static_cast<double>((i + 2 * r) % 3) - 1;
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
  if (spec.collective == Collective::kReduce || spec.collective == Collective::kGather ||
      spec.collective == Collective::kGatherV) {
    return spec.rank == spec.root;
  }
  if (spec.collective == Collective::kExScan) return spec.rank > 0;
  return true;
}

int64_t CountWrong(const CheckSpec& spec, const void* result) {
  if (!HasResult(spec)) return 0;
  int64_t wrong = 0;
  DispatchDataType(spec.type, TypedCount{spec, result, &wrong});
  return wrong;
}

std::optional<WrongElement> FirstWrong(const CheckSpec& spec, const void* result) {
  std::optional<WrongElement> first;
  if (!HasResult(spec)) return first;
  int64_t wrong = 0;
  DispatchDataType(spec.type, TypedCount{spec, result, &wrong, &first});
  return first;
}

}  // namespace bench
}  // namespace kcoll
