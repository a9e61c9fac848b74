// Kernels implemented with Kokkos, templated on the execution space. Include only from the per-backend .cc files
// that instantiate it (serial_kernels.cc, openmp_kernels.cc, cuda_kernels.cc): this is the one place with Kokkos
// parallel code.
#ifndef KCOLL_COLLECTIVES_KERNELS_KOKKOS_KERNELS_H_
#define KCOLL_COLLECTIVES_KERNELS_KOKKOS_KERNELS_H_

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "collectives/kernels/element_ops.h"
#include "collectives/kernels/exact_simd.h"
#include "collectives/kernels/exact_sum.h"
#include "collectives/kernels/half_simd.h"
#include "collectives/kernels/kernels.h"
#include "collectives/kernels/packed_reduce.h"
#include "collectives/kernels/streaming_stores.h"

namespace kcoll {

template <class T, ReduceOp Op>
struct ReduceFunctor {
  T* dst;
  const T* a;
  const T* b;
  KOKKOS_INLINE_FUNCTION void operator()(const int64_t i) const { dst[i] = Combine<T, Op>(a[i], b[i]); }
};

// Host execution spaces: a vectorised host routine (half_simd.h, exact_simd.h) over n elements, a block of them per
// index of the parallel loop; run(begin, length) does one block.
template <class Run>
struct HostBlocksFunctor {
  static constexpr int64_t kBlock = 4096;
  int64_t n;
  Run run;
  static int64_t Blocks(int64_t n) { return (n + kBlock - 1) / kBlock; }
  void operator()(const int64_t block) const {
    const int64_t begin = block * kBlock;
    run(begin, std::min(kBlock, n - begin));
  }
};

// Host destinations at or above the streaming-store threshold are written in pieces of this size, one per index of
// the parallel loop; each piece ends with a store fence, so the data is ordered before whatever the calling thread
// publishes next (the fence costs nothing at this granularity).
constexpr int64_t kStreamingPieceBytes = 256 << 10;

struct StreamingCopyFunctor {
  char* dst;
  const char* src;
  int64_t bytes;
  void operator()(const int64_t piece) const {
    const int64_t begin = piece * kStreamingPieceBytes;
    StreamingCopy(dst + begin, src + begin, static_cast<size_t>(std::min(kStreamingPieceBytes, bytes - begin)));
    StreamingStoreFence();
  }
};

// Reduces a piece 4 KiB at a time into a block on the stack (it stays in the L1 cache) and streams each block out.
// dst may alias a or b: a block is read whole before it is written.
template <class T, ReduceOp Op>
struct StreamingReduceFunctor {
  static constexpr int64_t kBlock = 4096 / static_cast<int64_t>(sizeof(T));
  static constexpr int64_t kPiece = kStreamingPieceBytes / static_cast<int64_t>(sizeof(T));
  T* dst;
  const T* a;
  const T* b;
  int64_t n;
  bool half_simd;  // 16-bit floats: the vectorised path of half_simd.h
  void operator()(const int64_t piece) const {
    alignas(64) T block[kBlock];
    const int64_t end = std::min(n, (piece + 1) * kPiece);
    for (int64_t begin = piece * kPiece; begin < end; begin += kBlock) {
      const int64_t len = std::min(kBlock, end - begin);
      if constexpr (std::is_same<T, Float16>::value || std::is_same<T, Bfloat16>::value) {
        if (half_simd) {
          HostReduceHalves(Op, block, a + begin, b + begin, static_cast<size_t>(len));
          StreamingCopy(dst + begin, block, static_cast<size_t>(len) * sizeof(T));
          continue;
        }
      }
      for (int64_t i = 0; i < len; ++i) block[i] = Combine<T, Op>(a[begin + i], b[begin + i]);
      StreamingCopy(dst + begin, block, static_cast<size_t>(len) * sizeof(T));
    }
    StreamingStoreFence();
  }
};

// Kernels::FoldInOrder: every term of element i, in order, in the accumulator type (element_ops.h).
template <class T, ReduceOp Op>
struct FoldFunctor {
  T* dst;
  const T* contributions;
  int64_t stride;
  int terms;
  KOKKOS_INLINE_FUNCTION void operator()(const int64_t i) const {
    using Acc = AccumulatorOf<T>;
    typename Acc::type acc = Acc::Widen(contributions[i]);
    for (int k = 1; k < terms; ++k) {
      acc = Combine<typename Acc::type, Op>(acc, Acc::Widen(contributions[k * stride + i]));
    }
    dst[i] = Acc::Narrow(acc);
  }
};

// The same on host execution spaces, a block of elements at a time: the accumulators stay in L1 and the loop over a
// block's elements is contiguous, so the compiler vectorises it (one element per index does not vectorise across
// the loop over terms).
template <class T, ReduceOp Op>
struct FoldBlockFunctor {
  static constexpr int64_t kBlock = 1024;
  T* dst;
  const T* contributions;
  int64_t stride;
  int terms;
  int64_t n;
  void operator()(const int64_t block) const {
    using Acc = AccumulatorOf<T>;
    using A = typename Acc::type;
    const int64_t begin = block * kBlock;
    const int64_t len = std::min(kBlock, n - begin);
    alignas(64) A acc[kBlock];
    const T* first = contributions + begin;
    for (int64_t j = 0; j < len; ++j) acc[j] = Acc::Widen(first[j]);
    for (int k = 1; k < terms; ++k) {
      const T* term = contributions + k * stride + begin;
      for (int64_t j = 0; j < len; ++j) acc[j] = Combine<A, Op>(acc[j], Acc::Widen(term[j]));
    }
    T* out = dst + begin;  // written after every term of the block is read: dst may be the first term
    for (int64_t j = 0; j < len; ++j) out[j] = Acc::Narrow(acc[j]);
  }
};

template <class T>
struct DivideFunctor {
  T* data;
  int divisor;
  KOKKOS_INLINE_FUNCTION void operator()(const int64_t i) const { data[i] = ElementOps<T>::Divide(data[i], divisor); }
};

// Kernels::ExactFold: exact_sum.h per element.
template <class T>
struct ExactFoldFunctor {
  T* dst;
  const T* contributions;
  int64_t stride;
  int window_terms;
  int sum_terms;
  KOKKOS_INLINE_FUNCTION void operator()(const int64_t i) const {
    dst[i] = ExactSumOfTerms(contributions + i, stride, window_terms, sum_terms);
  }
};

// Kernels::ExactSumOfTwo: exact_sum.h per element, the two terms side by side.
template <class T>
struct ExactPairFunctor {
  T* dst;
  const T* a;
  const T* b;
  KOKKOS_INLINE_FUNCTION void operator()(const int64_t i) const {
    const T two[2] = {a[i], b[i]};
    dst[i] = ExactSumOfTerms(two, 1, 2, 2);
  }
};

template <class ExecSpace>
class KokkosKernels final : public Kernels {
 public:
  using memory_space = typename ExecSpace::memory_space;
  // Host reductions of at most this many elements run inline, without a kernel launch.
  static constexpr size_t kInlineElements = 64;
  using Policy = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int64_t>>;
  using ByteView = Kokkos::View<char*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  static constexpr bool kHostMemory = std::is_same<memory_space, Kokkos::HostSpace>::value;

  // `synchronous`: fence after every kernel, for transports that read memory from the host (MPI). A stream-ordered
  // transport (NCCL on the same CUDA stream) needs no fence between a kernel and the next transfer.
  // `streaming_min_bytes`: host destinations of at least this many bytes are written with streaming stores.
  KokkosKernels(absl::string_view name, ExecSpace exec, bool synchronous, size_t streaming_min_bytes)
      : name_(name),
        exec_(exec),
        synchronous_(synchronous),
        streaming_min_bytes_(kHostMemory && StreamingStoresAvailable() ? streaming_min_bytes : kNoStreamingStores) {}

  absl::string_view name() const override { return name_; }

  MemoryKind memory() const override {
    return Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible ? MemoryKind::kHost
                                                                                   : MemoryKind::kDevice;
  }

  absl::Status Reduce(ReduceOp op, DataType type, void* dst, const void* a, const void* b, size_t n) override {
    if (n == 0) return absl::OkStatus();
    bool op_ok = true;
    bool launched = false;
    const bool type_ok = DispatchDataType(type, TypedReduce{this, op, dst, a, b, n, &op_ok, &launched});
    if (!type_ok) return absl::InvalidArgumentError(absl::StrCat("Reduce: type ", static_cast<int>(type), " invalid"));
    if (!op_ok) return absl::InvalidArgumentError(absl::StrCat("Reduce: op ", static_cast<int>(op), " invalid"));
    if (launched) Sync();
    return absl::OkStatus();
  }

  absl::Status Copy(void* dst, const void* src, size_t bytes, size_t destination_bytes) override {
    if (bytes == 0 || dst == src) return absl::OkStatus();
    if constexpr (kHostMemory) {
      // A part of a large destination: memcpy would store this part through the caches. (A whole copy is left to
      // memcpy, which streams large ones itself.)
      if (destination_bytes > bytes && destination_bytes >= streaming_min_bytes_) {
        const int64_t total = static_cast<int64_t>(bytes);
        const int64_t pieces = (total + kStreamingPieceBytes - 1) / kStreamingPieceBytes;
        Kokkos::parallel_for("kcoll::copy_streaming", Kokkos::RangePolicy<ExecSpace>(exec_, 0, pieces),
                             StreamingCopyFunctor{static_cast<char*>(dst), static_cast<const char*>(src), total});
        Sync();
        return absl::OkStatus();
      }
    }
    Kokkos::deep_copy(exec_, ByteView(static_cast<char*>(dst), bytes),
                      ByteView(static_cast<char*>(const_cast<void*>(src)), bytes));
    Sync();
    return absl::OkStatus();
  }

  absl::Status FoldInOrder(ReduceOp op, DataType type, void* dst, const void* contributions, size_t stride, size_t n,
                           int terms) override {
    if (terms < 1) return absl::InvalidArgumentError(absl::StrCat("FoldInOrder: terms ", terms, " is below 1"));
    if (n == 0) return absl::OkStatus();
    bool op_ok = true;
    const bool type_ok = DispatchDataType(type, TypedFold{this, op, dst, contributions, stride, n, terms, &op_ok});
    if (!type_ok) {
      return absl::InvalidArgumentError(absl::StrCat("FoldInOrder: type ", static_cast<int>(type), " invalid"));
    }
    if (!op_ok) return absl::InvalidArgumentError(absl::StrCat("FoldInOrder: op ", static_cast<int>(op), " invalid"));
    Sync();
    return absl::OkStatus();
  }
  absl::Status Divide(DataType type, void* data, size_t n, int divisor) override {
    if (divisor == 0) return absl::InvalidArgumentError("Divide: divisor 0");
    if (n == 0) return absl::OkStatus();
    const bool type_ok = DispatchDataType(type, TypedDivide{this, data, n, divisor});
    if (!type_ok) return absl::InvalidArgumentError(absl::StrCat("Divide: type ", static_cast<int>(type), " invalid"));
    Sync();
    return absl::OkStatus();
  }

  absl::Status ExactFold(DataType type, void* dst, const void* contributions, size_t stride, size_t n, int window_terms,
                         int sum_terms) override {
    if (sum_terms < 1 || sum_terms > window_terms) {
      return absl::InvalidArgumentError(
          absl::StrCat("ExactFold: sum_terms ", sum_terms, " is not in 1..window_terms (", window_terms, ")"));
    }
    if (n == 0) return absl::OkStatus();
    bool floating = false;
    DispatchDataType(type, TypedExactFold{this, dst, contributions, stride, n, window_terms, sum_terms, &floating});
    if (!floating) {
      return absl::InvalidArgumentError(
          absl::StrCat("ExactFold: type ", static_cast<int>(type), " is not a floating-point type"));
    }
    Sync();
    return absl::OkStatus();
  }

  absl::Status ExactSumOfTwo(DataType type, void* dst, const void* a, const void* b, size_t n) override {
    if (n == 0) return absl::OkStatus();
    bool floating = false;
    DispatchDataType(type, TypedExactPair{this, dst, a, b, n, &floating});
    if (!floating) {
      return absl::InvalidArgumentError(
          absl::StrCat("ExactSumOfTwo: type ", static_cast<int>(type), " is not a floating-point type"));
    }
    Sync();
    return absl::OkStatus();
  }

  void Fence() override { exec_.fence(); }

  absl::StatusOr<void*> Scratch(int slot, size_t bytes) override {
    Kokkos::View<char*, memory_space>& view = scratch_[slot];
    if (view.extent(0) < bytes) {
      view = Kokkos::View<char*, memory_space>();  // free before allocating the larger one
      view = Kokkos::View<char*, memory_space>(
          Kokkos::view_alloc(std::string("kcoll::scratch"), Kokkos::WithoutInitializing), bytes);
    }
    return static_cast<void*>(view.data());
  }

 private:
  struct TypedReduce {
    KokkosKernels* self;
    ReduceOp op;
    void* dst;
    const void* a;
    const void* b;
    size_t n;
    bool* op_ok;
    bool* launched;  // false when the reduction ran inline on the calling thread: nothing to fence
    template <class T>
    void operator()() const {
      if (!DispatchReduceOp(op, [this](auto op_tag) { this->template Launch<T, decltype(op_tag)::value>(); })) {
        *op_ok = false;
      }
    }
    template <class T, ReduceOp Op>
    void Launch() const {
      constexpr bool kHalf = std::is_same<T, Float16>::value || std::is_same<T, Bfloat16>::value;
      const bool half_simd =
          kHalf && (Op == ReduceOp::kSum || Op == ReduceOp::kProd) &&
          HostHalfSimdAvailable(std::is_same<T, Float16>::value ? DataType::kFloat16 : DataType::kBfloat16);
      if constexpr (kHostMemory) {
        if (n * sizeof(T) >= self->streaming_min_bytes_) {
          const int64_t count = static_cast<int64_t>(n);
          const int64_t pieces =
              (count + StreamingReduceFunctor<T, Op>::kPiece - 1) / StreamingReduceFunctor<T, Op>::kPiece;
          StreamingReduceFunctor<T, Op> f{static_cast<T*>(dst), static_cast<const T*>(a), static_cast<const T*>(b),
                                          count, half_simd};
          Kokkos::parallel_for("kcoll::reduce_streaming", Kokkos::RangePolicy<ExecSpace>(self->exec_, 0, pieces), f);
          *launched = true;
          return;
        }
      }
      if constexpr (kHalf && kHostMemory) {
        if (half_simd) {
          self->ForHostBlocks("kcoll::reduce_halves", static_cast<int64_t>(n),
                              [dst = static_cast<T*>(dst), a = static_cast<const T*>(a), b = static_cast<const T*>(b)](
                                  int64_t begin, int64_t length) {
                                HostReduceHalves(Op, dst + begin, a + begin, b + begin, static_cast<size_t>(length));
                              });
          *launched = true;
          return;
        }
      }
      constexpr bool kHostAccessible = Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible;
      if constexpr (!kHostAccessible && sizeof(T) < 16) {
        const auto packed = PackedReduceFunctor<T, Op>::Over(static_cast<T*>(dst), static_cast<const T*>(a),
                                                             static_cast<const T*>(b), static_cast<int64_t>(n));
        if (packed.packs > 0) {
          const int64_t indices = packed.Indices(static_cast<int64_t>(n));
          Kokkos::parallel_for("kcoll::reduce_packed", Policy(self->exec_, 0, indices), packed);
          *launched = true;
          return;
        }
      }
      ReduceFunctor<T, Op> f{static_cast<T*>(dst), static_cast<const T*>(a), static_cast<const T*>(b)};
      if constexpr (kHostMemory) {
        // A few elements in host memory: the functor's loop right here. A kernel launch (dispatch, profiling hooks,
        // fence) costs more than the work, and small reductions are what latency-bound calls are made of.
        if (n <= kInlineElements) {
          for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) f(i);
          return;
        }
      }
      Kokkos::parallel_for("kcoll::reduce", Policy(self->exec_, 0, static_cast<int64_t>(n)), f);
      *launched = true;
    }
  };

  struct TypedFold {
    KokkosKernels* self;
    ReduceOp op;
    void* dst;
    const void* contributions;
    size_t stride;
    size_t n;
    int terms;
    bool* op_ok;
    template <class T>
    void operator()() const {
      if (!DispatchReduceOp(op, [this](auto op_tag) { this->template Launch<T, decltype(op_tag)::value>(); })) {
        *op_ok = false;
      }
    }
    template <class T, ReduceOp Op>
    void Launch() const {
      if constexpr (kHostMemory) {
        const int64_t count = static_cast<int64_t>(n);
        constexpr int64_t kBlock = FoldBlockFunctor<T, Op>::kBlock;
        FoldBlockFunctor<T, Op> f{static_cast<T*>(dst), static_cast<const T*>(contributions),
                                  static_cast<int64_t>(stride), terms, count};
        Kokkos::parallel_for("kcoll::fold_in_order", Policy(self->exec_, 0, (count + kBlock - 1) / kBlock), f);
      } else {
        FoldFunctor<T, Op> f{static_cast<T*>(dst), static_cast<const T*>(contributions), static_cast<int64_t>(stride),
                             terms};
        Kokkos::parallel_for("kcoll::fold_in_order", Policy(self->exec_, 0, static_cast<int64_t>(n)), f);
      }
    }
  };

  // Launches ExactFoldFunctor for the floating-point types only (`floating` says whether it did).
  struct TypedExactFold {
    KokkosKernels* self;
    void* dst;
    const void* contributions;
    size_t stride;
    size_t n;
    int window_terms;
    int sum_terms;
    bool* floating;
    template <class T>
    void operator()() const {
      if constexpr (std::is_floating_point<T>::value || std::is_same<T, Float16>::value ||
                    std::is_same<T, Bfloat16>::value) {
        *floating = true;
        if constexpr (kHostMemory && std::is_same<T, double>::value) {
          if (HostExactSimdAvailable(ExactSimd::kBest) && sum_terms <= kExactSimdMaxTerms) {
            self->ForHostBlocks(
                "kcoll::exact_fold_simd", static_cast<int64_t>(n),
                [dst = static_cast<double*>(dst), terms = static_cast<const double*>(contributions), stride = stride,
                 window_terms = window_terms, sum_terms = sum_terms](int64_t begin, int64_t length) {
                  HostExactSums(dst + begin, terms + begin, stride, static_cast<size_t>(length), window_terms,
                                sum_terms);
                });
            return;
          }
        }
        ExactFoldFunctor<T> f{static_cast<T*>(dst), static_cast<const T*>(contributions), static_cast<int64_t>(stride),
                              window_terms, sum_terms};
        Kokkos::parallel_for("kcoll::exact_fold", Policy(self->exec_, 0, static_cast<int64_t>(n)), f);
      }
    }
  };

  // Launches ExactPairFunctor (host float64: the vector sums) for the floating-point types only.
  struct TypedExactPair {
    KokkosKernels* self;
    void* dst;
    const void* a;
    const void* b;
    size_t n;
    bool* floating;
    template <class T>
    void operator()() const {
      if constexpr (std::is_floating_point<T>::value || std::is_same<T, Float16>::value ||
                    std::is_same<T, Bfloat16>::value) {
        *floating = true;
        if constexpr (kHostMemory && std::is_same<T, double>::value) {
          if (HostExactSimdAvailable(ExactSimd::kBest)) {
            self->ForHostBlocks("kcoll::exact_pair_simd", static_cast<int64_t>(n),
                                [dst = static_cast<double*>(dst), a = static_cast<const double*>(a),
                                 b = static_cast<const double*>(b)](int64_t begin, int64_t length) {
                                  HostExactPairSums(dst + begin, a + begin, b + begin, static_cast<size_t>(length));
                                });
            return;
          }
        }
        ExactPairFunctor<T> f{static_cast<T*>(dst), static_cast<const T*>(a), static_cast<const T*>(b)};
        Kokkos::parallel_for("kcoll::exact_pair", Policy(self->exec_, 0, static_cast<int64_t>(n)), f);
      }
    }
  };

  struct TypedDivide {
    KokkosKernels* self;
    void* data;
    size_t n;
    int divisor;
    template <class T>
    void operator()() const {
      DivideFunctor<T> f{static_cast<T*>(data), divisor};
      Kokkos::parallel_for("kcoll::divide", Policy(self->exec_, 0, static_cast<int64_t>(n)), f);
    }
  };

  // A host routine over n elements in blocks, one per index of a parallel loop (host execution spaces only).
  template <class Run>
  void ForHostBlocks(const char* name, int64_t n, Run run) {
    Kokkos::parallel_for(name, Kokkos::RangePolicy<ExecSpace>(exec_, 0, HostBlocksFunctor<Run>::Blocks(n)),
                         HostBlocksFunctor<Run>{n, run});
  }

  void Sync() {
    if (synchronous_) exec_.fence();
  }

  std::string name_;
  ExecSpace exec_;
  bool synchronous_;
  size_t streaming_min_bytes_;
  std::map<int, Kokkos::View<char*, memory_space>> scratch_;
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_KERNELS_KOKKOS_KERNELS_H_
