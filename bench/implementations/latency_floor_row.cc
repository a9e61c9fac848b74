#include "bench/implementations/latency_floor_row.h"

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/names.h"

namespace kcoll {
namespace bench {
namespace {

// The type T's sums are taken in: integers add as unsigned, so that a wrap is defined (MPI's and kcoll's sums wrap
// alike; the benchmark's small integers never do).
template <typename T, bool = std::is_integral_v<T>>
struct AddAs {
  using type = T;
};
template <typename T>
struct AddAs<T, true> {
  using type = std::make_unsigned_t<T>;
};

// Adds every rank's payload, in rank order, into `out` (`count` elements of T): the same bits on every rank.
template <typename T>
absl::Status SumInRankOrder(CacheLineExchange& exchange, const void* send, void* out, size_t count) {
  using Add = typename AddAs<T>::type;
  T sum[CacheLineExchange::kPayloadBytes / sizeof(T)];
  const absl::Status done = exchange.Exchange(send, count * sizeof(T), [&](int rank, const void* payload) {
    T theirs[CacheLineExchange::kPayloadBytes / sizeof(T)];
    std::memcpy(theirs, payload, count * sizeof(T));
    for (size_t i = 0; i < count; ++i) {
      sum[i] = rank == 0 ? theirs[i] : static_cast<T>(static_cast<Add>(sum[i]) + static_cast<Add>(theirs[i]));
    }
  });
  if (!done.ok()) return done;
  std::memcpy(out, sum, count * sizeof(T));
  return absl::OkStatus();
}

class LatencyFloorRow final : public Implementation {
 public:
  explicit LatencyFloorRow(std::unique_ptr<CacheLineExchange> exchange) : exchange_(std::move(exchange)) {}

  std::string name() const override { return kLatencyFloorRowName; }
  std::string kind() const override { return kLatencyFloorRowKind; }

  absl::Status Run(const Call& c) override {
    if (c.collective != Collective::kAllReduce) {
      return absl::UnimplementedError(
          absl::StrCat("the latency floor is an all_reduce, not ", CollectiveName(c.collective)));
    }
    if (!c.op.has_value() || *c.op != ReduceOp::kSum) {
      return absl::UnimplementedError(
          absl::StrCat("the latency floor sums; op ", c.op.has_value() ? ReduceOpName(*c.op) : "none", " is not sum"));
    }
    const size_t bytes = c.layout.count * DataTypeSize(c.type);
    if (bytes > kLatencyFloorRowMaxBytes) {
      return absl::UnimplementedError(absl::StrCat("the latency floor carries one cache line: ", bytes,
                                                   " bytes are over its ", kLatencyFloorRowMaxBytes));
    }
    switch (c.type) {
      case DataType::kInt8:
        return Sum<int8_t>(c);
      case DataType::kUint8:
        return Sum<uint8_t>(c);
      case DataType::kInt32:
        return Sum<int32_t>(c);
      case DataType::kUint32:
        return Sum<uint32_t>(c);
      case DataType::kInt64:
        return Sum<int64_t>(c);
      case DataType::kUint64:
        return Sum<uint64_t>(c);
      case DataType::kFloat32:
        return Sum<float>(c);
      case DataType::kFloat64:
        return Sum<double>(c);
      default:
        return absl::UnimplementedError(
            absl::StrCat("the latency floor sums integers, float and double, not ", DataTypeName(c.type)));
    }
  }

 private:
  template <typename T>
  absl::Status Sum(const Call& c) {
    return SumInRankOrder<T>(*exchange_, c.send, c.recv, c.layout.count);
  }

  std::unique_ptr<CacheLineExchange> exchange_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Implementation>> MakeLatencyFloorRow(MPI_Comm comm) {
  absl::StatusOr<std::unique_ptr<CacheLineExchange>> exchange = CacheLineExchange::Create(comm);
  if (!exchange.ok()) {
    return absl::Status(exchange.status().code(),
                        absl::StrCat("latency_floor: its ranks must share one host: ", exchange.status().message()));
  }
  return std::unique_ptr<Implementation>(new LatencyFloorRow(*std::move(exchange)));
}

}  // namespace bench
}  // namespace kcoll
