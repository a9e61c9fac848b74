#include "collectives/bucket_fusion.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "collectives/kernels/kernels.h"

namespace kcoll {
namespace {

// A contiguous run of one tensor's elements inside a bucket.
struct Piece {
  size_t tensor;
  size_t first;  // element offset in the tensor
  size_t count;
};

const char* MemoryName(MemoryKind memory) { return memory == MemoryKind::kDevice ? "device" : "host"; }

absl::Status CheckArguments(const std::vector<FusionTensor>& tensors, DataType type, ReduceOp op,
                            const BucketOptions& options, const Kernels& kernels) {
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
  if (options.memory != kernels.memory()) {
    return absl::InvalidArgumentError(absl::StrCat("bucketed all_reduce: memory ", MemoryName(options.memory),
                                                   ", but this communicator's kernels (", kernels.name(), ") work on ",
                                                   MemoryName(kernels.memory()), " memory"));
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
  Kernels* kernels = comm.kernels();
  if (kernels == nullptr) {
    return absl::FailedPreconditionError("bucketed all_reduce: the communicator is finalized");
  }
  if (absl::Status s = CheckArguments(tensors, type, op, options, *kernels); !s.ok()) {
    return comm.RejectCall(Collective::kAllReduce, s);
  }
  const size_t elem = DataTypeSize(type);
  const size_t bucket_elements = options.bucket_bytes / elem;
  size_t total = 0;
  for (const FusionTensor& t : tensors) total += t.count;

  BucketStats stats;
  stats.elements = total;
  char* pack = nullptr;  // the kernels' scratch, taken on the first bucket that needs packing
  std::vector<Piece> bucket;
  size_t filled = 0;

  auto flush = [&]() -> absl::Status {
    if (bucket.empty()) return absl::OkStatus();
    ++stats.buckets;
    if (bucket.size() == 1) {  // one piece of one tensor: reduce it where it is
      const FusionTensor& t = tensors[bucket[0].tensor];
      const size_t at = bucket[0].first * elem;
      KCOLL_RETURN_IF_ERROR(comm.AllReduce(static_cast<const char*>(t.send) + at, static_cast<char*>(t.recv) + at,
                                           bucket[0].count, type, op, options.call, options.memory));
    } else {
      ++stats.packed;
      if (pack == nullptr) {
        KCOLL_ASSIGN_OR_RETURN(void* scratch, kernels->Scratch(Communicator::kWrapperScratchSlot,
                                                               std::min(bucket_elements, total) * elem));
        pack = static_cast<char*>(scratch);
      }
      size_t offset = 0;
      for (const Piece& p : bucket) {
        KCOLL_RETURN_IF_ERROR(kernels->Copy(
            pack + offset, static_cast<const char*>(tensors[p.tensor].send) + p.first * elem, p.count * elem));
        offset += p.count * elem;
      }
      KCOLL_RETURN_IF_ERROR(comm.AllReduce(pack, pack, filled, type, op, options.call, options.memory));
      offset = 0;
      for (const Piece& p : bucket) {
        KCOLL_RETURN_IF_ERROR(
            kernels->Copy(static_cast<char*>(tensors[p.tensor].recv) + p.first * elem, pack + offset, p.count * elem));
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
