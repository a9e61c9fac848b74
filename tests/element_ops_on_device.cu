// Compiled by nvcc for a GPU (see the BUILD rule that builds it): every element operation the kernels use,
// instantiated for every type and op inside a __global__ function, so that anything host-only reachable from a
// kernel (a std:: call, a non-device function, a virtual call) fails the build on every machine with the CUDA
// toolkit, GPU or not. Not run: compiling it is the check.
#include "collectives/kernels/element_ops.h"

namespace kcoll {
namespace {

template <class T, ReduceOp Op>
__global__ void CombineKernel(T* dst, const T* a, const T* b, long n) {
  const long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (i < n) dst[i] = Combine<T, Op>(a[i], b[i]);
}

// What Kernels::FoldInOrder's functor does per element: accumulate in AccumulatorOf<T>, narrow once.
template <class T, ReduceOp Op>
__global__ void FoldKernel(T* dst, const T* contributions, long stride, int terms, long n) {
  const long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  using Acc = AccumulatorOf<T>;
  typename Acc::type acc = Acc::Widen(contributions[i]);
  for (int k = 1; k < terms; ++k) acc = Combine<typename Acc::type, Op>(acc, Acc::Widen(contributions[k * stride + i]));
  dst[i] = Acc::Narrow(acc);
}

template <class T>
__global__ void DivideKernel(T* data, int divisor, long n) {
  const long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (i < n) data[i] = ElementOps<T>::Divide(data[i], divisor);
}

struct InstantiateAll {
  template <class T>
  void operator()() const {
    T* p = nullptr;
    CombineKernel<T, ReduceOp::kSum><<<1, 1>>>(p, p, p, 0);
    CombineKernel<T, ReduceOp::kProd><<<1, 1>>>(p, p, p, 0);
    CombineKernel<T, ReduceOp::kMin><<<1, 1>>>(p, p, p, 0);
    CombineKernel<T, ReduceOp::kMax><<<1, 1>>>(p, p, p, 0);
    FoldKernel<T, ReduceOp::kSum><<<1, 1>>>(p, p, 0, 1, 0);
    FoldKernel<T, ReduceOp::kMax><<<1, 1>>>(p, p, 0, 1, 0);
    DivideKernel<T><<<1, 1>>>(p, 1, 0);
  }
};

}  // namespace

void InstantiateElementOpsOnDevice() {
  for (DataType type :
       {DataType::kInt8, DataType::kUint8, DataType::kInt32, DataType::kUint32, DataType::kInt64, DataType::kUint64,
        DataType::kFloat16, DataType::kBfloat16, DataType::kFloat32, DataType::kFloat64}) {
    DispatchDataType(type, InstantiateAll{});
  }
}

}  // namespace kcoll
