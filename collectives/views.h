// Collectives on typed Kokkos Views. The element type picks the kcoll DataType (kcoll::Float16 and
// kcoll::Bfloat16 for the 16-bit floats), the memory space tells the transport where the data lives, and the
// views must be contiguous.
#ifndef KCOLL_COLLECTIVES_VIEWS_H_
#define KCOLL_COLLECTIVES_VIEWS_H_

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "collectives/communicator.h"
#include "collectives/kernels/half.h"

namespace kcoll {

template <class T>
struct DataTypeOf;
template <>
struct DataTypeOf<int8_t> : std::integral_constant<DataType, DataType::kInt8> {};
template <>
struct DataTypeOf<uint8_t> : std::integral_constant<DataType, DataType::kUint8> {};
template <>
struct DataTypeOf<int32_t> : std::integral_constant<DataType, DataType::kInt32> {};
template <>
struct DataTypeOf<uint32_t> : std::integral_constant<DataType, DataType::kUint32> {};
template <>
struct DataTypeOf<int64_t> : std::integral_constant<DataType, DataType::kInt64> {};
template <>
struct DataTypeOf<uint64_t> : std::integral_constant<DataType, DataType::kUint64> {};
template <>
struct DataTypeOf<Float16> : std::integral_constant<DataType, DataType::kFloat16> {};
template <>
struct DataTypeOf<Bfloat16> : std::integral_constant<DataType, DataType::kBfloat16> {};
template <>
struct DataTypeOf<float> : std::integral_constant<DataType, DataType::kFloat32> {};
template <>
struct DataTypeOf<double> : std::integral_constant<DataType, DataType::kFloat64> {};

template <class View>
MemoryKind MemoryKindOf() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename View::memory_space>::accessible ? MemoryKind::kHost
                                                                                                : MemoryKind::kDevice;
}

template <class View>
absl::Status CheckContiguous(const View& view, absl::string_view name) {
  if (!view.span_is_contiguous()) {
    return absl::InvalidArgumentError(absl::StrCat(name, " \"", view.label(), "\" is not contiguous"));
  }
  return absl::OkStatus();
}

// AllReduce of send into recv (the same View for in place); both must have the same extent.
template <class SendView, class RecvView>
absl::Status AllReduce(Communicator& comm, const SendView& send, const RecvView& recv, ReduceOp op,
                       const CallOptions& options = {}) {
  using T = typename RecvView::non_const_value_type;
  static_assert(std::is_same<typename SendView::non_const_value_type, T>::value,
                "send and recv views must have the same element type");
  static_assert(std::is_same<typename SendView::memory_space, typename RecvView::memory_space>::value,
                "send and recv views must be in the same memory space");
  if (send.size() != recv.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("all_reduce: send view has ", send.size(), " elements but recv view has ", recv.size()));
  }
  if (absl::Status s = CheckContiguous(send, "all_reduce: send view"); !s.ok()) return s;
  if (absl::Status s = CheckContiguous(recv, "all_reduce: recv view"); !s.ok()) return s;
  return comm.AllReduce(send.data(), recv.data(), recv.size(), DataTypeOf<T>::value, op, options,
                        MemoryKindOf<RecvView>());
}

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_VIEWS_H_
