// Collectives on typed Kokkos Views. The element type picks the kcoll DataType (kcoll::Float16 and
// kcoll::Bfloat16 for the 16-bit floats), the memory space tells the transport where the data lives, and the
// views must be contiguous.
#ifndef KCOLL_COLLECTIVES_VIEWS_H_
#define KCOLL_COLLECTIVES_VIEWS_H_

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/half.h"
#include "collectives/communicator.h"

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

namespace views_internal {

// Element type, memory space and contiguity checks shared by every overload.
template <class SendView, class RecvView>
struct Pair {
  using T = typename RecvView::non_const_value_type;
  static_assert(std::is_same<typename SendView::non_const_value_type, T>::value,
                "send and recv views must have the same element type");
  static_assert(std::is_same<typename SendView::memory_space, typename RecvView::memory_space>::value,
                "send and recv views must be in the same memory space");
  static_assert(std::is_same<typename RecvView::value_type, T>::value, "the recv view must not be const");
  static constexpr DataType kType = DataTypeOf<T>::value;
};

template <class SendView, class RecvView>
absl::Status CheckContiguousPair(const SendView& send, const RecvView& recv, absl::string_view name) {
  if (absl::Status s = CheckContiguous(send, absl::StrCat(name, ": send view")); !s.ok()) return s;
  return CheckContiguous(recv, absl::StrCat(name, ": recv view"));
}

// "<name>: <a_name> view has <a> elements but <b_name> view has <b>[ x <nranks> ranks = <b * nranks>]"; nranks 0
// for collectives whose extents must simply match.
inline absl::Status ExtentMismatch(absl::string_view name, absl::string_view a_name, size_t a, absl::string_view b_name,
                                   size_t b, int nranks) {
  std::string needs = absl::StrCat(b);
  if (nranks > 0) absl::StrAppend(&needs, " x ", nranks, " ranks = ", b * static_cast<size_t>(nranks));
  return absl::InvalidArgumentError(absl::StrCat(name, ": ", a_name, " view has ", a, " elements but ", b_name,
                                                 " view has ", needs, nranks > 0 ? "" : " (they must match)"));
}

}  // namespace views_internal

// AllReduce of send into recv (the same View for in place); both must have the same extent.
template <class SendView, class RecvView>
absl::Status AllReduce(Communicator& comm, const SendView& send, const RecvView& recv, ReduceOp op,
                       const CallOptions& options = {}) {
  using P = views_internal::Pair<SendView, RecvView>;
  if (send.size() != recv.size()) {
    return comm.RejectCall(Collective::kAllReduce,
                           views_internal::ExtentMismatch("all_reduce", "send", send.size(), "recv", recv.size(), 0));
  }
  if (absl::Status s = views_internal::CheckContiguousPair(send, recv, "all_reduce"); !s.ok()) {
    return comm.RejectCall(Collective::kAllReduce, s);
  }
  return comm.AllReduce(send.data(), recv.data(), recv.size(), P::kType, op, options, MemoryKindOf<RecvView>());
}

// ReduceScatter: send holds nranks blocks of recv's extent. In place: recv is rank's block of send (a subview).
template <class SendView, class RecvView>
absl::Status ReduceScatter(Communicator& comm, const SendView& send, const RecvView& recv, ReduceOp op,
                           const CallOptions& options = {}) {
  using P = views_internal::Pair<SendView, RecvView>;
  if (send.size() != recv.size() * static_cast<size_t>(comm.size())) {
    return comm.RejectCall(
        Collective::kReduceScatter,
        views_internal::ExtentMismatch("reduce_scatter", "send", send.size(), "recv", recv.size(), comm.size()));
  }
  if (absl::Status s = views_internal::CheckContiguousPair(send, recv, "reduce_scatter"); !s.ok()) {
    return comm.RejectCall(Collective::kReduceScatter, s);
  }
  return comm.ReduceScatter(send.data(), recv.data(), recv.size(), P::kType, op, options, MemoryKindOf<RecvView>());
}

// AllGather: recv holds nranks blocks of send's extent. In place: send is rank's block of recv (a subview).
template <class SendView, class RecvView>
absl::Status AllGather(Communicator& comm, const SendView& send, const RecvView& recv,
                       const CallOptions& options = {}) {
  using P = views_internal::Pair<SendView, RecvView>;
  if (recv.size() != send.size() * static_cast<size_t>(comm.size())) {
    return comm.RejectCall(Collective::kAllGather, views_internal::ExtentMismatch("all_gather", "recv", recv.size(),
                                                                                  "send", send.size(), comm.size()));
  }
  if (absl::Status s = views_internal::CheckContiguousPair(send, recv, "all_gather"); !s.ok()) {
    return comm.RejectCall(Collective::kAllGather, s);
  }
  return comm.AllGather(send.data(), recv.data(), send.size(), P::kType, options, MemoryKindOf<RecvView>());
}

// Broadcast of root's send into every rank's recv. The count is recv's extent; send is read on the root only,
// where its extent must match (elsewhere it may be empty).
template <class SendView, class RecvView>
absl::Status Broadcast(Communicator& comm, const SendView& send, const RecvView& recv, int root,
                       const CallOptions& options = {}) {
  using P = views_internal::Pair<SendView, RecvView>;
  if (comm.rank() == root && send.size() != recv.size()) {
    return comm.RejectCall(Collective::kBroadcast, views_internal::ExtentMismatch("broadcast", "root's send",
                                                                                  send.size(), "recv", recv.size(), 0));
  }
  if (absl::Status s = views_internal::CheckContiguousPair(send, recv, "broadcast"); !s.ok()) {
    return comm.RejectCall(Collective::kBroadcast, s);
  }
  return comm.Broadcast(send.data(), recv.data(), recv.size(), P::kType, root, options, MemoryKindOf<RecvView>());
}

// In-place Broadcast of root's `view` into every rank's `view`.
template <class View>
absl::Status Broadcast(Communicator& comm, const View& view, int root, const CallOptions& options = {}) {
  return Broadcast(comm, view, view, root, options);
}

// Reduce of every rank's send into root's recv. The count is send's extent; recv is written on the root only,
// where its extent must match (elsewhere it may be empty).
template <class SendView, class RecvView>
absl::Status Reduce(Communicator& comm, const SendView& send, const RecvView& recv, ReduceOp op, int root,
                    const CallOptions& options = {}) {
  using P = views_internal::Pair<SendView, RecvView>;
  if (comm.rank() == root && recv.size() != send.size()) {
    return comm.RejectCall(Collective::kReduce, views_internal::ExtentMismatch("reduce", "root's recv", recv.size(),
                                                                               "send", send.size(), 0));
  }
  if (absl::Status s = views_internal::CheckContiguousPair(send, recv, "reduce"); !s.ok()) {
    return comm.RejectCall(Collective::kReduce, s);
  }
  return comm.Reduce(send.data(), recv.data(), send.size(), P::kType, op, root, options, MemoryKindOf<RecvView>());
}

// AllToAll: send and recv have the same extent, nranks blocks each (so the extent must divide by nranks).
template <class SendView, class RecvView>
absl::Status AllToAll(Communicator& comm, const SendView& send, const RecvView& recv, const CallOptions& options = {}) {
  using P = views_internal::Pair<SendView, RecvView>;
  if (send.size() != recv.size()) {
    return comm.RejectCall(Collective::kAllToAll,
                           views_internal::ExtentMismatch("alltoall", "send", send.size(), "recv", recv.size(), 0));
  }
  const size_t n = static_cast<size_t>(comm.size());
  if (send.size() % n != 0) {
    return absl::InvalidArgumentError(absl::StrCat("alltoall: view extent ", send.size(), " is not divisible by ", n,
                                                   " ranks (one equal block per rank)"));
  }
  if (absl::Status s = views_internal::CheckContiguousPair(send, recv, "alltoall"); !s.ok()) {
    return comm.RejectCall(Collective::kAllToAll, s);
  }
  return comm.AllToAll(send.data(), recv.data(), send.size() / n, P::kType, options, MemoryKindOf<RecvView>());
}

// Gather of every rank's send into root's recv (nranks blocks of send's extent; elsewhere recv may be empty).
template <class SendView, class RecvView>
absl::Status Gather(Communicator& comm, const SendView& send, const RecvView& recv, int root,
                    const CallOptions& options = {}) {
  using P = views_internal::Pair<SendView, RecvView>;
  if (comm.rank() == root && recv.size() != send.size() * static_cast<size_t>(comm.size())) {
    return comm.RejectCall(Collective::kGather, views_internal::ExtentMismatch("gather", "root's recv", recv.size(),
                                                                               "send", send.size(), comm.size()));
  }
  if (absl::Status s = views_internal::CheckContiguousPair(send, recv, "gather"); !s.ok()) {
    return comm.RejectCall(Collective::kGather, s);
  }
  return comm.Gather(send.data(), recv.data(), send.size(), P::kType, root, options, MemoryKindOf<RecvView>());
}

// Scatter of root's send (nranks blocks of recv's extent; elsewhere send may be empty) into every rank's recv.
template <class SendView, class RecvView>
absl::Status Scatter(Communicator& comm, const SendView& send, const RecvView& recv, int root,
                     const CallOptions& options = {}) {
  using P = views_internal::Pair<SendView, RecvView>;
  if (comm.rank() == root && send.size() != recv.size() * static_cast<size_t>(comm.size())) {
    return comm.RejectCall(Collective::kScatter, views_internal::ExtentMismatch("scatter", "root's send", send.size(),
                                                                                "recv", recv.size(), comm.size()));
  }
  if (absl::Status s = views_internal::CheckContiguousPair(send, recv, "scatter"); !s.ok()) {
    return comm.RejectCall(Collective::kScatter, s);
  }
  return comm.Scatter(send.data(), recv.data(), recv.size(), P::kType, root, options, MemoryKindOf<RecvView>());
}

// SendRecv (rank r sends to r+1, receives from r-1): send and recv have the same extent.
template <class SendView, class RecvView>
absl::Status SendRecv(Communicator& comm, const SendView& send, const RecvView& recv, const CallOptions& options = {}) {
  using P = views_internal::Pair<SendView, RecvView>;
  if (send.size() != recv.size()) {
    return comm.RejectCall(Collective::kSendRecv,
                           views_internal::ExtentMismatch("sendrecv", "send", send.size(), "recv", recv.size(), 0));
  }
  if (absl::Status s = views_internal::CheckContiguousPair(send, recv, "sendrecv"); !s.ok()) {
    return comm.RejectCall(Collective::kSendRecv, s);
  }
  return comm.SendRecv(send.data(), recv.data(), recv.size(), P::kType, options, MemoryKindOf<RecvView>());
}

// A registered buffer (Communicator::Allocate) of `count` elements as an unmanaged host View; collectives on such
// views run zero-copy when every rank passes one. Collective, as Allocate; give it back with FreeView.
template <class T>
using RegisteredView = Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

template <class T>
absl::StatusOr<RegisteredView<T>> AllocateView(Communicator& comm, size_t count) {
  static_assert(std::is_trivially_copyable<T>::value, "registered views hold plain data");
  absl::StatusOr<void*> data = comm.Allocate(count * sizeof(T));
  if (!data.ok()) return data.status();
  return RegisteredView<T>(static_cast<T*>(*data), count);
}

template <class T>
absl::Status FreeView(Communicator& comm, const RegisteredView<T>& view) {
  return comm.Free(view.data());
}

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_VIEWS_H_
