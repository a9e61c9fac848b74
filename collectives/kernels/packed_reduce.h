// The element-wise reduction on device memory, in 16-byte packs: a functor any execution space can run (Kokkos'
// parallel_for on CUDA; a plain loop in the tests).
#ifndef KCOLL_COLLECTIVES_KERNELS_PACKED_REDUCE_H_
#define KCOLL_COLLECTIVES_KERNELS_PACKED_REDUCE_H_

#include <algorithm>
#include <cstdint>

#include "base/portability.h"
#include "base/types.h"
#include "collectives/kernels/element_ops.h"

namespace kcoll {

// Device memory: each thread reduces a 16-byte pack of elements with one 16-byte load per input and one store.
// One element per thread moves 4-byte types at 60% and 2-byte types at 30% of a device-to-device cudaMemcpy's
// bandwidth on an H200 (docs/measured/gpu_h200_kernels.txt), 8-byte types at 100%. The index space is the head
// (elements before the first 16-byte boundary, one per index), the packs, then the tail (the last elements after
// the packs, one per index); the caller makes sure the three arrays share their offset from a 16-byte boundary.
template <class T, ReduceOp Op>
struct PackedReduceFunctor {
  static constexpr int64_t kLanes = 16 / sizeof(T);
  struct alignas(16) Pack {
    T v[kLanes];
  };
  T* dst;
  const T* a;
  const T* b;
  int64_t head;
  int64_t packs;

  // The functor for `n` elements, or packs == 0 when the arrays' offsets from a 16-byte boundary differ.
  static PackedReduceFunctor Over(T* dst, const T* a, const T* b, int64_t n) {
    const auto offset = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16; };
    PackedReduceFunctor f{dst, a, b, 0, 0};
    if (offset(dst) != offset(a) || offset(a) != offset(b) || offset(a) % sizeof(T) != 0) return f;
    f.head = std::min<int64_t>(n, static_cast<int64_t>((16 - offset(a)) % 16 / sizeof(T)));
    f.packs = (n - f.head) / kLanes;
    return f;
  }
  // Indices to launch for `n` elements.
  int64_t Indices(int64_t n) const { return n - packs * (kLanes - 1); }

  KCOLL_INLINE_FUNCTION void operator()(const int64_t i) const {
    if (i >= head && i < head + packs) {
      const int64_t at = head + (i - head) * kLanes;
      const Pack x = *reinterpret_cast<const Pack*>(a + at);
      const Pack y = *reinterpret_cast<const Pack*>(b + at);
      Pack out;
      for (int64_t k = 0; k < kLanes; ++k) out.v[k] = Combine<T, Op>(x.v[k], y.v[k]);
      *reinterpret_cast<Pack*>(dst + at) = out;
      return;
    }
    const int64_t e = i < head ? i : i + packs * (kLanes - 1);
    dst[e] = Combine<T, Op>(a[e], b[e]);
  }
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_KERNELS_PACKED_REDUCE_H_
