// numerics=exact on two ranks at numerics=fast's memory traffic. With two ranks every AllReduce, Reduce and
// ReduceScatter(V) schedule combines each element once, x0 with x1 (there is no third term to add), and an exact sum
// of two terms (exact_sum.h) has the same bits whichever rank computes it and in either order. So the fast schedules
// give the exact sum when each of their sums is an exact sum of two: this wraps the communicator's kernels for such a
// call, turning a sum (or an average's sum) of floating-point data into Kernels::ExactSumOfTwo, and passes everything
// else through. Scans are not among these calls: rank 0's exact prefix is its term truncated in the window of both.
#ifndef KCOLL_COLLECTIVES_KERNELS_EXACT_PAIR_KERNELS_H_
#define KCOLL_COLLECTIVES_KERNELS_EXACT_PAIR_KERNELS_H_

#include <cstddef>

#include "collectives/kernels/kernels.h"

namespace kcoll {

class ExactPairKernels final : public Kernels {
 public:
  explicit ExactPairKernels(Kernels& inner) : inner_(inner) {}

  absl::string_view name() const override { return inner_.name(); }
  MemoryKind memory() const override { return inner_.memory(); }
  absl::Status Reduce(ReduceOp op, DataType type, void* dst, const void* a, const void* b, size_t n) override;
  // Two terms: their exact sum. More: an error (no two-rank schedule folds more), never a rounded chain of sums.
  absl::Status FoldInOrder(ReduceOp op, DataType type, void* dst, const void* contributions, size_t stride, size_t n,
                           int terms) override;
  using Kernels::Copy;
  absl::Status Copy(void* dst, const void* src, size_t bytes, size_t destination_bytes) override {
    return inner_.Copy(dst, src, bytes, destination_bytes);
  }
  absl::Status Divide(DataType type, void* data, size_t n, int divisor) override {
    return inner_.Divide(type, data, n, divisor);
  }
  absl::Status ExactFold(DataType type, void* dst, const void* contributions, size_t stride, size_t n, int window_terms,
                         int sum_terms) override {
    return inner_.ExactFold(type, dst, contributions, stride, n, window_terms, sum_terms);
  }
  absl::Status ExactSumOfTwo(DataType type, void* dst, const void* a, const void* b, size_t n) override {
    return inner_.ExactSumOfTwo(type, dst, a, b, n);
  }
  void Fence() override { inner_.Fence(); }
  absl::StatusOr<void*> Scratch(int slot, size_t bytes) override { return inner_.Scratch(slot, bytes); }

 private:
  Kernels& inner_;
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_KERNELS_EXACT_PAIR_KERNELS_H_
