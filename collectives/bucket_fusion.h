// Bucket fusion: many small AllReduces (a model's gradients, say) cost one latency each; packing them into
// buckets of a fixed size and running one AllReduce per bucket pays that latency once per bucket instead. PyTorch
// DDP does this with 25 MiB buckets.
//
//   std::vector<kcoll::FusionTensor> grads = {{w1, w1, n1}, {b1, b1, m1}, ...};   // in place
//   auto stats = kcoll::BucketedAllReduce(*comm, grads, kcoll::DataType::kFloat32, kcoll::ReduceOp::kAvg);
//
// The tensors are laid end to end, in the order given, and that stream is cut into buckets of `bucket_bytes`
// (whole elements; the last bucket may be shorter). A tensor larger than a bucket spans several; a bucket may hold
// the tail of one tensor and the heads of the next. Each bucket is packed into a host buffer, reduced in place with
// one Communicator::AllReduce, and unpacked into the tensors' receive buffers; a bucket that is one contiguous piece
// of one tensor is reduced straight from and into that tensor, without packing. Every rank must pass tensors of the
// same counts in the same order.
//
// Packing runs on the communicator's kernels, in the memory their execution space uses: host tensors with host
// kernels, device tensors (BucketOptions::memory = kDevice) with CUDA kernels, whose copies are device-to-device
// on the stream of the AllReduces, so a bucket of GPU gradients never crosses to the host to be packed.
#ifndef KCOLL_COLLECTIVES_BUCKET_FUSION_H_
#define KCOLL_COLLECTIVES_BUCKET_FUSION_H_

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"
#include "collectives/communicator.h"

namespace kcoll {

// `count` elements read from `send` and written to `recv`; send == recv is in place. Zero-size tensors are allowed
// (and skipped).
struct FusionTensor {
  const void* send = nullptr;
  void* recv = nullptr;
  size_t count = 0;
};

struct BucketOptions {
  size_t bucket_bytes = size_t{25} << 20;  // PyTorch DDP's default bucket_cap_mb
  CallOptions call;                        // algorithm and tuning of each bucket's AllReduce
  MemoryKind memory = MemoryKind::kHost;   // where every tensor lives: the communicator's kernels' memory
};

struct BucketStats {
  int buckets = 0;      // AllReduce calls made: ceil(total bytes / bucket bytes)
  int packed = 0;       // of which went through the packing buffer
  size_t elements = 0;  // total elements reduced
};

// AllReduce of every tensor (elementwise, over ranks), one AllReduce per bucket. Arguments are checked before any
// traffic: InvalidArgument for a bucket smaller than one element, an invalid type or op, a null buffer, or tensors in
// memory the communicator's kernels do not work in.
absl::StatusOr<BucketStats> BucketedAllReduce(Communicator& comm, const std::vector<FusionTensor>& tensors,
                                              DataType type, ReduceOp op, const BucketOptions& options = {});

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_BUCKET_FUSION_H_
