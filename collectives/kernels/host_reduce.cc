#include "collectives/kernels/host_reduce.h"

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "collectives/kernels/element_ops.h"
#include "collectives/kernels/exact_sum.h"

namespace kcoll {
namespace {

// Folds block by block: each block's accumulators take rank 0's elements, then every other rank's in rank order, so
// every element combines its inputs in rank order (the same bits as one element at a time), and each rank's pass over
// a block is a loop the compiler vectorises. A block is stored after every input's part of it is read: out may be an
// input.
template <class T, ReduceOp Op>
void FoldInOrder(unsigned char* out, const unsigned char* const* inputs, int n, size_t count) {
  using Acc = AccumulatorOf<T>;
  if (count < 8) {  // a few elements (an 8-byte call): one at a time, without the vector loops' set-up
    for (size_t j = 0; j < count; ++j) {
      T term;
      std::memcpy(&term, inputs[0] + j * sizeof(T), sizeof(T));
      typename Acc::type acc = Acc::Widen(term);
      for (int r = 1; r < n; ++r) {
        std::memcpy(&term, inputs[r] + j * sizeof(T), sizeof(T));
        acc = Combine<typename Acc::type, Op>(acc, Acc::Widen(term));
      }
      const T result = Acc::Narrow(acc);
      std::memcpy(out + j * sizeof(T), &result, sizeof(T));
    }
    return;
  }
  constexpr size_t kBlock = 64;
  typename Acc::type acc[kBlock];
  for (size_t begin = 0; begin < count; begin += kBlock) {
    const size_t m = count - begin < kBlock ? count - begin : kBlock;
    const size_t offset = begin * sizeof(T);
    for (size_t j = 0; j < m; ++j) {
      T first;
      std::memcpy(&first, inputs[0] + offset + j * sizeof(T), sizeof(T));
      acc[j] = Acc::Widen(first);
    }
    for (int r = 1; r < n; ++r) {
      const unsigned char* in = inputs[r] + offset;
      for (size_t j = 0; j < m; ++j) {
        T next;
        std::memcpy(&next, in + j * sizeof(T), sizeof(T));
        acc[j] = Combine<typename Acc::type, Op>(acc[j], Acc::Widen(next));
      }
    }
    for (size_t j = 0; j < m; ++j) {
      const T result = Acc::Narrow(acc[j]);
      std::memcpy(out + offset + j * sizeof(T), &result, sizeof(T));
    }
  }
}

// DispatchDataType's callee: the fold of the element type it is called with and the op.
struct FoldOfType {
  ReduceOp op;
  HostFoldFn fold = nullptr;

  template <class T>
  void operator()() {
    DispatchReduceOp(op, [this](auto op_tag) { fold = &FoldInOrder<T, decltype(op_tag)::value>; });
  }
};

// HostExactSum's callee for the floating-point types: exact_sum.h per element.
struct ExactSumOfType {
  unsigned char* out;
  const unsigned char* const* inputs;
  int window_terms;
  int sum_terms;
  size_t count;
  bool floating = false;

  template <class T>
  void operator()() {
    if constexpr (std::is_floating_point<T>::value || std::is_same<T, Float16>::value ||
                  std::is_same<T, Bfloat16>::value) {
      floating = true;
      for (size_t i = 0; i < count; ++i) {
        const size_t at = i * sizeof(T);
        if constexpr (std::is_same<T, float>::value) {
          if (window_terms <=
              kExactFloatInDoubleMaxTerms) {  // the kernels' float path (exact_sum.h), terms side by side
            float terms[kExactFloatInDoubleMaxTerms], result;
            for (int r = 0; r < window_terms; ++r) std::memcpy(&terms[r], inputs[r] + at, sizeof(float));
            if (exact_internal::FloatSumInDouble(terms, 1, window_terms, sum_terms, &result)) {
              std::memcpy(out + at, &result, sizeof(float));
              continue;
            }
          }
        }
        uint8_t code = 0;
        for (int r = 0; r < window_terms; ++r) {
          T term;
          std::memcpy(&term, inputs[r] + at, sizeof(T));
          const uint8_t c = ExactCode(term);
          code = c > code ? c : code;
        }
        int64_t words[ExactFormat<T>::kWords] = {};
        for (int r = 0; r < sum_terms; ++r) {
          T term;
          std::memcpy(&term, inputs[r] + at, sizeof(T));
          ExactAddTerm(term, code, words);
        }
        const T result = ExactResult<T>(words, code);
        std::memcpy(out + at, &result, sizeof(T));
      }
    }
  }
};

}  // namespace

bool HostExactSum(DataType type, void* out, const unsigned char* const* inputs, int window_terms, int sum_terms,
                  size_t count) {
  if (sum_terms < 1 || sum_terms > window_terms) return false;
  ExactSumOfType sum{static_cast<unsigned char*>(out), inputs, window_terms, sum_terms, count};
  return DispatchDataType(type, sum) && sum.floating;
}

HostFoldFn HostFoldInOrderFor(ReduceOp op, DataType type) {
  FoldOfType of{op};
  return DispatchDataType(type, of) ? of.fold : nullptr;
}

bool HostReduceInOrder(ReduceOp op, DataType type, void* out, const unsigned char* const* inputs, int n, size_t count) {
  const HostFoldFn fold = HostFoldInOrderFor(op, type);
  if (fold == nullptr) return false;
  fold(static_cast<unsigned char*>(out), inputs, n, count);
  return true;
}

}  // namespace kcoll
