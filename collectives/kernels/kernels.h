// The element-wise work an algorithm needs between transfers, behind one interface so that algorithms are written
// once, without Kokkos, and run on whatever execution space the communicator chose.
#ifndef KCOLL_COLLECTIVES_KERNELS_KERNELS_H_
#define KCOLL_COLLECTIVES_KERNELS_KERNELS_H_

#include <cstddef>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/transport_kind.h"
#include "base/types.h"

namespace kcoll {

class Kernels {
 public:
  virtual ~Kernels() = default;

  // "serial", "openmp", "cuda": the Kokkos execution space the kernels run on.
  virtual absl::string_view name() const = 0;
  virtual MemoryKind memory() const = 0;

  // dst[i] = a[i] (op) b[i] for i < n; dst may alias a or b. kAvg combines as a sum (see Divide).
  virtual absl::Status Reduce(ReduceOp op, DataType type, void* dst, const void* a, const void* b, size_t n) = 0;
  // dst[i] = ((c0[i] op c1[i]) op c2[i]) ... op c(terms-1)[i] for i < n, in that order, where ck starts `stride`
  // elements after c(k-1) at `contributions`: one pass over every term. 16-bit floats accumulate in float and round
  // once at the end (a chain of Reduce calls rounds at every step); every other type gives Reduce's bits. terms >= 1;
  // dst may alias c0. kAvg combines as a sum (see Divide).
  virtual absl::Status FoldInOrder(ReduceOp op, DataType type, void* dst, const void* contributions, size_t stride,
                                   size_t n, int terms) = 0;
  // Copies `bytes` bytes; the ranges must not overlap unless dst == src.
  absl::Status Copy(void* dst, const void* src, size_t bytes) { return Copy(dst, src, bytes, bytes); }
  // The same, for a copy that fills part of a destination of `destination_bytes` bytes that this call does not read
  // again (an algorithm copying a large result chunk by chunk): host kernels write destinations at or above their
  // streaming-store threshold (streaming_stores.h) around the caches.
  virtual absl::Status Copy(void* dst, const void* src, size_t bytes, size_t destination_bytes) = 0;
  // data[i] /= divisor, in the element type's arithmetic (integer division truncates): finishes an average.
  virtual absl::Status Divide(DataType type, void* data, size_t n, int divisor) = 0;
  // numerics=exact (exact_sum.h), for the floating-point types: dst[i] = ExactSumOfTerms over contributions
  // `stride` elements apart, the window chosen by the first window_terms, the sum of the first sum_terms (1 <=
  // sum_terms <= window_terms). dst may alias the first contribution.
  virtual absl::Status ExactFold(DataType type, void* dst, const void* contributions, size_t stride, size_t n,
                                 int window_terms, int sum_terms) = 0;
  // numerics=exact of two terms held apart (two ranks' copies of a block): dst[i] = ExactSumOfTerms of a[i] and b[i],
  // ExactFold's bits for the two as its rows, the same in either order. dst may alias a or b.
  virtual absl::Status ExactSumOfTwo(DataType type, void* dst, const void* a, const void* b, size_t n) = 0;
  // Waits until every kernel launched so far has finished.
  virtual void Fence() = 0;

  // A scratch buffer of at least `bytes` bytes in the kernels' memory space, kept between calls (grow-only, so a
  // steady stream of collectives allocates once). `slot` tells concurrent buffers of one algorithm apart.
  // Valid until the next Scratch call with the same slot or the destruction of this object.
  virtual absl::StatusOr<void*> Scratch(int slot, size_t bytes) = 0;
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_KERNELS_KERNELS_H_
