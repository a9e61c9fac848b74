#include "collectives/bucket_fusion.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "collectives/status_macros.h"

namespace kcoll {
namespace {

// A contiguous run of one tensor's elements inside a bucket.
struct Piece {
  size_t tensor;
  size_t first;  // element offset in the tensor
  size_t count;
};

absl::Status CheckArguments(const std::vector<FusionTensor>& tensors, DataType type, ReduceOp op,
                            const BucketOptions& options) {
  if (!IsValid(type)) {
    return absl::InvalidArgumentError(
        absl::StrCat("bucketed all_reduce: type ", static_cast<int>(type), " is not a kcoll DataType"));
  }
  if (!IsValid(op)) {
    return absl::InvalidArgumentError(
        absl::StrCat("bucketed all_reduce: op ", static_cast<int>(op), " is not a kcoll ReduceOp"));
  }
  if (options.bucket_bytes < DataTypeSize(type)) {
    return absl::InvalidArgumentError(absl::StrCat("bucketed all_reduce: bucket_bytes ", options.bucket_bytes,
                                                   " is smaller than one ", DataTypeName(type), " element"));
  }
  for (size_t t = 0; t < tensors.size(); ++t) {
    if (tensors[t].count > 0 && (tensors[t].send == nullptr || tensors[t].recv == nullptr)) {
      return absl::InvalidArgumentError(absl::StrCat("bucketed all_reduce: tensor ", t, " has count ", tensors[t].count,
                                                     " but a null ", tensors[t].send == nullptr ? "send" : "recv",
                                                     " buffer"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<BucketStats> BucketedAllReduce(Communicator& comm, const std::vector<FusionTensor>& tensors,
                                              DataType type, ReduceOp op, const BucketOptions& options) {
  if (absl::Status s = CheckArguments(tensors, type, op, options); !s.ok()) {
    return comm.RejectCall(Collective::kAllReduce, s);
  }
  const size_t elem = DataTypeSize(type);
  const size_t bucket_elements = options.bucket_bytes / elem;
  size_t total = 0;
  for (const FusionTensor& t : tensors) total += t.count;

  BucketStats stats;
  stats.elements = total;
  std::unique_ptr<char[]> pack;  // allocated on the first bucket that needs packing
  std::vector<Piece> bucket;
  size_t filled = 0;

  auto flush = [&]() -> absl::Status {
    if (bucket.empty()) return absl::OkStatus();
    ++stats.buckets;
    if (bucket.size() == 1) {  // one piece of one tensor: reduce it where it is
      const FusionTensor& t = tensors[bucket[0].tensor];
      const size_t at = bucket[0].first * elem;
      KCOLL_RETURN_IF_ERROR(comm.AllReduce(static_cast<const char*>(t.send) + at, static_cast<char*>(t.recv) + at,
                                           bucket[0].count, type, op, options.call));
    } else {
      ++stats.packed;
      if (pack == nullptr) pack.reset(new char[std::min(bucket_elements, total) * elem]);
      size_t offset = 0;
      for (const Piece& p : bucket) {
        std::memcpy(pack.get() + offset, static_cast<const char*>(tensors[p.tensor].send) + p.first * elem,
                    p.count * elem);
        offset += p.count * elem;
      }
      KCOLL_RETURN_IF_ERROR(comm.AllReduce(pack.get(), pack.get(), filled, type, op, options.call));
      offset = 0;
      for (const Piece& p : bucket) {
        std::memcpy(static_cast<char*>(tensors[p.tensor].recv) + p.first * elem, pack.get() + offset, p.count * elem);
        offset += p.count * elem;
      }
    }
    bucket.clear();
    filled = 0;
    return absl::OkStatus();
  };

  for (size_t t = 0; t < tensors.size(); ++t) {
    size_t first = 0;
    while (first < tensors[t].count) {
      const size_t take = std::min(tensors[t].count - first, bucket_elements - filled);
      bucket.push_back(Piece{t, first, take});
      filled += take;
      first += take;
      if (filled == bucket_elements) KCOLL_RETURN_IF_ERROR(flush());
    }
  }
  KCOLL_RETURN_IF_ERROR(flush());
  return stats;
}

}  // namespace kcoll
