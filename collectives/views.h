// Collectives on typed Kokkos Views. The element type picks the kcoll DataType (kcoll::Float16 and
// kcoll::Bfloat16 for the 16-bit floats), the memory space tells the transport where the data lives, and the
// views must be contiguous.
#ifndef KCOLL_COLLECTIVES_VIEWS_H_
#define KCOLL_COLLECTIVES_VIEWS_H_

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

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

namespace views_internal {

// A call on Views as the Communicator takes it, or the reason this rank rejects it (which the call then reports on
// every rank, as Communicator::RejectCall does).
struct ViewCall {
  Collective collective;
  const void* send = nullptr;
  void* recv = nullptr;
  size_t count = 0;
  DataType type = DataType::kUint8;
  ReduceOp op = ReduceOp::kSum;
  int root = 0;
  MemoryKind memory = MemoryKind::kHost;
  absl::Status rejection;
};

template <class SendView, class RecvView>
ViewCall MakeCall(Collective collective, const SendView& send, const RecvView& recv, size_t count, ReduceOp op,
                  int root, absl::Status rejection) {
  using P = Pair<SendView, RecvView>;
  if (rejection.ok()) rejection = CheckContiguousPair(send, recv, CollectiveName(collective));
  return ViewCall{collective,          send.data(), recv.data(), count, P::kType, op, root, MemoryKindOf<RecvView>(),
                  std::move(rejection)};
}

inline absl::Status RunCall(Communicator& comm, const ViewCall& call, const CallOptions& options) {
  if (!call.rejection.ok()) return comm.RejectCall(call.collective, call.rejection);
  return comm.Call(call.collective, call.send, call.recv, call.count, call.type, call.op, call.root, options,
                   call.memory);
}

inline Request IssueCall(Communicator& comm, const ViewCall& call, const CallOptions& options) {
  if (!call.rejection.ok()) return CompletedRequest(comm.RejectCall(call.collective, call.rejection));
  return comm.ICall(call.collective, call.send, call.recv, call.count, call.type, call.op, call.root, options,
                    call.memory);
}

// Each collective's extents, checked: the arguments of its Communicator call.
template <class SendView, class RecvView>
ViewCall AllReduceCall(const SendView& send, const RecvView& recv, ReduceOp op) {
  return MakeCall(Collective::kAllReduce, send, recv, recv.size(), op, 0,
                  send.size() == recv.size()
                      ? absl::OkStatus()
                      : ExtentMismatch("all_reduce", "send", send.size(), "recv", recv.size(), 0));
}

template <class SendView, class RecvView>
ViewCall ScanCall(Collective collective, const SendView& send, const RecvView& recv, ReduceOp op) {
  return MakeCall(collective, send, recv, recv.size(), op, 0,
                  send.size() == recv.size()
                      ? absl::OkStatus()
                      : ExtentMismatch(CollectiveName(collective), "send", send.size(), "recv", recv.size(), 0));
}

template <class SendView, class RecvView>
ViewCall ReduceScatterCall(const Communicator& comm, const SendView& send, const RecvView& recv, ReduceOp op) {
  return MakeCall(Collective::kReduceScatter, send, recv, recv.size(), op, 0,
                  send.size() == recv.size() * static_cast<size_t>(comm.size())
                      ? absl::OkStatus()
                      : ExtentMismatch("reduce_scatter", "send", send.size(), "recv", recv.size(), comm.size()));
}

template <class SendView, class RecvView>
ViewCall AllGatherCall(const Communicator& comm, const SendView& send, const RecvView& recv) {
  return MakeCall(Collective::kAllGather, send, recv, send.size(), ReduceOp::kSum, 0,
                  recv.size() == send.size() * static_cast<size_t>(comm.size())
                      ? absl::OkStatus()
                      : ExtentMismatch("all_gather", "recv", recv.size(), "send", send.size(), comm.size()));
}

template <class SendView, class RecvView>
ViewCall BroadcastCall(const Communicator& comm, const SendView& send, const RecvView& recv, int root) {
  return MakeCall(Collective::kBroadcast, send, recv, recv.size(), ReduceOp::kSum, root,
                  comm.rank() != root || send.size() == recv.size()
                      ? absl::OkStatus()
                      : ExtentMismatch("broadcast", "root's send", send.size(), "recv", recv.size(), 0));
}

template <class SendView, class RecvView>
ViewCall ReduceCall(const Communicator& comm, const SendView& send, const RecvView& recv, ReduceOp op, int root) {
  return MakeCall(Collective::kReduce, send, recv, send.size(), op, root,
                  comm.rank() != root || recv.size() == send.size()
                      ? absl::OkStatus()
                      : ExtentMismatch("reduce", "root's recv", recv.size(), "send", send.size(), 0));
}

template <class SendView, class RecvView>
ViewCall AllToAllCall(const Communicator& comm, const SendView& send, const RecvView& recv) {
  const size_t n = static_cast<size_t>(comm.size());
  absl::Status rejection;
  if (send.size() != recv.size()) {
    rejection = ExtentMismatch("alltoall", "send", send.size(), "recv", recv.size(), 0);
  } else if (send.size() % n != 0) {
    rejection = absl::InvalidArgumentError(absl::StrCat("alltoall: view extent ", send.size(), " is not divisible by ",
                                                        n, " ranks (one equal block per rank)"));
  }
  return MakeCall(Collective::kAllToAll, send, recv, send.size() / n, ReduceOp::kSum, 0, std::move(rejection));
}

template <class SendView, class RecvView>
ViewCall GatherCall(const Communicator& comm, const SendView& send, const RecvView& recv, int root) {
  return MakeCall(Collective::kGather, send, recv, send.size(), ReduceOp::kSum, root,
                  comm.rank() != root || recv.size() == send.size() * static_cast<size_t>(comm.size())
                      ? absl::OkStatus()
                      : ExtentMismatch("gather", "root's recv", recv.size(), "send", send.size(), comm.size()));
}

template <class SendView, class RecvView>
ViewCall ScatterCall(const Communicator& comm, const SendView& send, const RecvView& recv, int root) {
  return MakeCall(Collective::kScatter, send, recv, recv.size(), ReduceOp::kSum, root,
                  comm.rank() != root || send.size() == recv.size() * static_cast<size_t>(comm.size())
                      ? absl::OkStatus()
                      : ExtentMismatch("scatter", "root's send", send.size(), "recv", recv.size(), comm.size()));
}

template <class SendView, class RecvView>
ViewCall SendRecvCall(const SendView& send, const RecvView& recv) {
  return MakeCall(Collective::kSendRecv, send, recv, recv.size(), ReduceOp::kSum, 0,
                  send.size() == recv.size() ? absl::OkStatus()
                                             : ExtentMismatch("sendrecv", "send", send.size(), "recv", recv.size(), 0));
}

}  // namespace views_internal

// Each collective comes in a blocking form and a nonblocking one (I..., returning a Request; collectives/request.h),
// with the same checks: a View whose extent does not fit the call is InvalidArgument naming both extents.

// AllReduce of send into recv (the same View for in place); both must have the same extent.
template <class SendView, class RecvView>
absl::Status AllReduce(Communicator& comm, const SendView& send, const RecvView& recv, ReduceOp op,
                       const CallOptions& options = {}) {
  return views_internal::RunCall(comm, views_internal::AllReduceCall(send, recv, op), options);
}
template <class SendView, class RecvView>
Request IAllReduce(Communicator& comm, const SendView& send, const RecvView& recv, ReduceOp op,
                   const CallOptions& options = {}) {
  return views_internal::IssueCall(comm, views_internal::AllReduceCall(send, recv, op), options);
}

// Scan (MPI_Scan: recv = op over ranks 0..rank of send) and ExScan (MPI_Exscan: over ranks 0..rank-1; rank 0's recv
// is not written); send and recv have the same extent, the same View for in place.
template <class SendView, class RecvView>
absl::Status Scan(Communicator& comm, const SendView& send, const RecvView& recv, ReduceOp op,
                  const CallOptions& options = {}) {
  return views_internal::RunCall(comm, views_internal::ScanCall(Collective::kScan, send, recv, op), options);
}
template <class SendView, class RecvView>
Request IScan(Communicator& comm, const SendView& send, const RecvView& recv, ReduceOp op,
              const CallOptions& options = {}) {
  return views_internal::IssueCall(comm, views_internal::ScanCall(Collective::kScan, send, recv, op), options);
}
template <class SendView, class RecvView>
absl::Status ExScan(Communicator& comm, const SendView& send, const RecvView& recv, ReduceOp op,
                    const CallOptions& options = {}) {
  return views_internal::RunCall(comm, views_internal::ScanCall(Collective::kExScan, send, recv, op), options);
}
template <class SendView, class RecvView>
Request IExScan(Communicator& comm, const SendView& send, const RecvView& recv, ReduceOp op,
                const CallOptions& options = {}) {
  return views_internal::IssueCall(comm, views_internal::ScanCall(Collective::kExScan, send, recv, op), options);
}

// The v-collectives (MPI's semantics; Communicator::AllGatherV, AllToAllV, ReduceScatterV, GatherV, ScatterV) with
// one count (and displacement) per rank; the blocks must lie inside the views (InvalidArgument naming the view, its
// extent and the end of the furthest block). The nonblocking forms keep reading the vectors until the request
// completed.
namespace views_internal {

inline size_t BlocksEnd(const std::vector<size_t>& counts, const std::vector<size_t>& displs) {
  size_t end = 0;
  for (size_t j = 0; j < counts.size() && j < displs.size(); ++j) {
    if (counts[j] > 0) end = std::max(end, displs[j] + counts[j]);
  }
  return end;
}

inline absl::Status CheckBlocks(const Communicator& comm, absl::string_view name, absl::string_view view_name,
                                size_t extent, const std::vector<size_t>& counts, absl::string_view counts_name,
                                const std::vector<size_t>& displs, absl::string_view displs_name) {
  const size_t n = static_cast<size_t>(comm.size());
  if (counts.size() != n || displs.size() != n) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": ", counts_name, " has ", counts.size(), " entries and ",
                                                   displs_name, " ", displs.size(), "; the communicator has ", n,
                                                   " ranks"));
  }
  if (BlocksEnd(counts, displs) > extent) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": ", view_name, " view has ", extent,
                                                   " elements but its blocks reach element ",
                                                   BlocksEnd(counts, displs)));
  }
  return absl::OkStatus();
}

template <class SendView, class RecvView>
absl::Status AllGatherVCheck(const Communicator& comm, const SendView& send, const RecvView& recv,
                             const std::vector<size_t>& recvcounts, const std::vector<size_t>& recvdispls) {
  (void)Pair<SendView, RecvView>::kType;
  if (absl::Status s = CheckContiguousPair(send, recv, "all_gatherv"); !s.ok()) return s;
  return CheckBlocks(comm, "all_gatherv", "recv", recv.size(), recvcounts, "recvcounts", recvdispls, "recvdispls");
}

template <class SendView, class RecvView>
absl::Status AllToAllVCheck(const Communicator& comm, const SendView& send, const RecvView& recv,
                            const std::vector<size_t>& sendcounts, const std::vector<size_t>& senddispls,
                            const std::vector<size_t>& recvcounts, const std::vector<size_t>& recvdispls) {
  (void)Pair<SendView, RecvView>::kType;
  if (absl::Status s = CheckContiguousPair(send, recv, "alltoallv"); !s.ok()) return s;
  if (absl::Status s =
          CheckBlocks(comm, "alltoallv", "send", send.size(), sendcounts, "sendcounts", senddispls, "senddispls");
      !s.ok()) {
    return s;
  }
  return CheckBlocks(comm, "alltoallv", "recv", recv.size(), recvcounts, "recvcounts", recvdispls, "recvdispls");
}

template <class SendView, class RecvView>
absl::Status ReduceScatterVCheck(const Communicator& comm, const SendView& send, const RecvView& recv,
                                 const std::vector<size_t>& recvcounts) {
  (void)Pair<SendView, RecvView>::kType;
  if (absl::Status s = CheckContiguousPair(send, recv, "reduce_scatterv"); !s.ok()) return s;
  const size_t n = static_cast<size_t>(comm.size());
  if (recvcounts.size() != n) {
    return absl::InvalidArgumentError(absl::StrCat("reduce_scatterv: recvcounts has ", recvcounts.size(),
                                                   " entries; the communicator has ", n, " ranks"));
  }
  size_t total = 0;
  for (size_t c : recvcounts) total += c;
  if (send.size() < total) {
    return absl::InvalidArgumentError(
        absl::StrCat("reduce_scatterv: send view has ", send.size(), " elements but recvcounts add up to ", total));
  }
  const size_t mine = recvcounts[static_cast<size_t>(comm.rank())];
  if (recv.size() < mine) {
    return absl::InvalidArgumentError(absl::StrCat("reduce_scatterv: recv view has ", recv.size(),
                                                   " elements but this rank's block (recvcounts[", comm.rank(),
                                                   "]) has ", mine));
  }
  return absl::OkStatus();
}

// GatherV's and ScatterV's arrays are read on the root only: elsewhere they may be empty.
template <class SendView, class RecvView>
absl::Status GatherVCheck(const Communicator& comm, const SendView& send, const RecvView& recv,
                          const std::vector<size_t>& recvcounts, const std::vector<size_t>& recvdispls, int root) {
  (void)Pair<SendView, RecvView>::kType;
  if (absl::Status s = CheckContiguousPair(send, recv, "gatherv"); !s.ok()) return s;
  if (comm.rank() != root) return absl::OkStatus();
  return CheckBlocks(comm, "gatherv", "root's recv", recv.size(), recvcounts, "recvcounts", recvdispls, "recvdispls");
}

template <class SendView, class RecvView>
absl::Status ScatterVCheck(const Communicator& comm, const SendView& send, const RecvView& recv,
                           const std::vector<size_t>& sendcounts, const std::vector<size_t>& senddispls, int root) {
  (void)Pair<SendView, RecvView>::kType;
  if (absl::Status s = CheckContiguousPair(send, recv, "scatterv"); !s.ok()) return s;
  if (comm.rank() != root) return absl::OkStatus();
  return CheckBlocks(comm, "scatterv", "root's send", send.size(), sendcounts, "sendcounts", senddispls, "senddispls");
}

}  // namespace views_internal

// AllGatherV: send's extent is this rank's count (recvcounts[rank]); rank j's block lands at recvdispls[j] of recv.
template <class SendView, class RecvView>
absl::Status AllGatherV(Communicator& comm, const SendView& send, const RecvView& recv,
                        const std::vector<size_t>& recvcounts, const std::vector<size_t>& recvdispls,
                        const CallOptions& options = {}) {
  using P = views_internal::Pair<SendView, RecvView>;
  absl::Status checked = views_internal::AllGatherVCheck(comm, send, recv, recvcounts, recvdispls);
  if (!checked.ok()) return comm.RejectCall(Collective::kAllGatherV, checked);
  return comm.AllGatherV(send.data(), send.size(), recv.data(), recvcounts.data(), recvdispls.data(), P::kType, options,
                         MemoryKindOf<RecvView>());
}
template <class SendView, class RecvView>
Request IAllGatherV(Communicator& comm, const SendView& send, const RecvView& recv,
                    const std::vector<size_t>& recvcounts, const std::vector<size_t>& recvdispls,
                    const CallOptions& options = {}) {
  using P = views_internal::Pair<SendView, RecvView>;
  absl::Status checked = views_internal::AllGatherVCheck(comm, send, recv, recvcounts, recvdispls);
  if (!checked.ok()) return CompletedRequest(comm.RejectCall(Collective::kAllGatherV, checked));
  return comm.IAllGatherV(send.data(), send.size(), recv.data(), recvcounts.data(), recvdispls.data(), P::kType,
                          options, MemoryKindOf<RecvView>());
}

// AllToAllV: the sendcounts[j] elements at senddispls[j] of send go to rank j, the recvcounts[j] from rank j land at
// recvdispls[j] of recv.
template <class SendView, class RecvView>
absl::Status AllToAllV(Communicator& comm, const SendView& send, const std::vector<size_t>& sendcounts,
                       const std::vector<size_t>& senddispls, const RecvView& recv,
                       const std::vector<size_t>& recvcounts, const std::vector<size_t>& recvdispls,
                       const CallOptions& options = {}) {
  using P = views_internal::Pair<SendView, RecvView>;
  absl::Status checked =
      views_internal::AllToAllVCheck(comm, send, recv, sendcounts, senddispls, recvcounts, recvdispls);
  if (!checked.ok()) return comm.RejectCall(Collective::kAllToAllV, checked);
  return comm.AllToAllV(send.data(), sendcounts.data(), senddispls.data(), recv.data(), recvcounts.data(),
                        recvdispls.data(), P::kType, options, MemoryKindOf<RecvView>());
}
template <class SendView, class RecvView>
Request IAllToAllV(Communicator& comm, const SendView& send, const std::vector<size_t>& sendcounts,
                   const std::vector<size_t>& senddispls, const RecvView& recv, const std::vector<size_t>& recvcounts,
                   const std::vector<size_t>& recvdispls, const CallOptions& options = {}) {
  using P = views_internal::Pair<SendView, RecvView>;
  absl::Status checked =
      views_internal::AllToAllVCheck(comm, send, recv, sendcounts, senddispls, recvcounts, recvdispls);
  if (!checked.ok()) return CompletedRequest(comm.RejectCall(Collective::kAllToAllV, checked));
  return comm.IAllToAllV(send.data(), sendcounts.data(), senddispls.data(), recv.data(), recvcounts.data(),
                         recvdispls.data(), P::kType, options, MemoryKindOf<RecvView>());
}

// ReduceScatterV (MPI_Reduce_scatter): send holds the blocks of every rank end to end (recvcounts, the same on every
// rank); block j, reduced over ranks, lands in rank j's recv (at least recvcounts[j] elements).
template <class SendView, class RecvView>
absl::Status ReduceScatterV(Communicator& comm, const SendView& send, const RecvView& recv,
                            const std::vector<size_t>& recvcounts, ReduceOp op, const CallOptions& options = {}) {
  using P = views_internal::Pair<SendView, RecvView>;
  absl::Status checked = views_internal::ReduceScatterVCheck(comm, send, recv, recvcounts);
  if (!checked.ok()) return comm.RejectCall(Collective::kReduceScatterV, checked);
  return comm.ReduceScatterV(send.data(), recv.data(), recvcounts.data(), P::kType, op, options,
                             MemoryKindOf<RecvView>());
}
template <class SendView, class RecvView>
Request IReduceScatterV(Communicator& comm, const SendView& send, const RecvView& recv,
                        const std::vector<size_t>& recvcounts, ReduceOp op, const CallOptions& options = {}) {
  using P = views_internal::Pair<SendView, RecvView>;
  absl::Status checked = views_internal::ReduceScatterVCheck(comm, send, recv, recvcounts);
  if (!checked.ok()) return CompletedRequest(comm.RejectCall(Collective::kReduceScatterV, checked));
  return comm.IReduceScatterV(send.data(), recv.data(), recvcounts.data(), P::kType, op, options,
                              MemoryKindOf<RecvView>());
}

// GatherV: send's extent is this rank's count; on the root, rank j's block lands at recvdispls[j] of recv. The
// arrays (and recv) are read on the root only: elsewhere they may be empty.
template <class SendView, class RecvView>
absl::Status GatherV(Communicator& comm, const SendView& send, const RecvView& recv,
                     const std::vector<size_t>& recvcounts, const std::vector<size_t>& recvdispls, int root,
                     const CallOptions& options = {}) {
  using P = views_internal::Pair<SendView, RecvView>;
  absl::Status checked = views_internal::GatherVCheck(comm, send, recv, recvcounts, recvdispls, root);
  if (!checked.ok()) return comm.RejectCall(Collective::kGatherV, checked);
  return comm.GatherV(send.data(), send.size(), recv.data(), recvcounts.data(), recvdispls.data(), P::kType, root,
                      options, MemoryKindOf<RecvView>());
}
template <class SendView, class RecvView>
Request IGatherV(Communicator& comm, const SendView& send, const RecvView& recv, const std::vector<size_t>& recvcounts,
                 const std::vector<size_t>& recvdispls, int root, const CallOptions& options = {}) {
  using P = views_internal::Pair<SendView, RecvView>;
  absl::Status checked = views_internal::GatherVCheck(comm, send, recv, recvcounts, recvdispls, root);
  if (!checked.ok()) return CompletedRequest(comm.RejectCall(Collective::kGatherV, checked));
  return comm.IGatherV(send.data(), send.size(), recv.data(), recvcounts.data(), recvdispls.data(), P::kType, root,
                       options, MemoryKindOf<RecvView>());
}

// ScatterV: on the root, the sendcounts[j] elements at senddispls[j] of send go to rank j; recv's extent is this
// rank's count. The arrays (and send) are read on the root only: elsewhere they may be empty.
template <class SendView, class RecvView>
absl::Status ScatterV(Communicator& comm, const SendView& send, const std::vector<size_t>& sendcounts,
                      const std::vector<size_t>& senddispls, const RecvView& recv, int root,
                      const CallOptions& options = {}) {
  using P = views_internal::Pair<SendView, RecvView>;
  absl::Status checked = views_internal::ScatterVCheck(comm, send, recv, sendcounts, senddispls, root);
  if (!checked.ok()) return comm.RejectCall(Collective::kScatterV, checked);
  return comm.ScatterV(send.data(), sendcounts.data(), senddispls.data(), recv.data(), recv.size(), P::kType, root,
                       options, MemoryKindOf<RecvView>());
}
template <class SendView, class RecvView>
Request IScatterV(Communicator& comm, const SendView& send, const std::vector<size_t>& sendcounts,
                  const std::vector<size_t>& senddispls, const RecvView& recv, int root,
                  const CallOptions& options = {}) {
  using P = views_internal::Pair<SendView, RecvView>;
  absl::Status checked = views_internal::ScatterVCheck(comm, send, recv, sendcounts, senddispls, root);
  if (!checked.ok()) return CompletedRequest(comm.RejectCall(Collective::kScatterV, checked));
  return comm.IScatterV(send.data(), sendcounts.data(), senddispls.data(), recv.data(), recv.size(), P::kType, root,
                        options, MemoryKindOf<RecvView>());
}

// ReduceScatter: send holds nranks blocks of recv's extent. In place: recv is rank's block of send (a subview).
template <class SendView, class RecvView>
absl::Status ReduceScatter(Communicator& comm, const SendView& send, const RecvView& recv, ReduceOp op,
                           const CallOptions& options = {}) {
  return views_internal::RunCall(comm, views_internal::ReduceScatterCall(comm, send, recv, op), options);
}
template <class SendView, class RecvView>
Request IReduceScatter(Communicator& comm, const SendView& send, const RecvView& recv, ReduceOp op,
                       const CallOptions& options = {}) {
  return views_internal::IssueCall(comm, views_internal::ReduceScatterCall(comm, send, recv, op), options);
}

// AllGather: recv holds nranks blocks of send's extent. In place: send is rank's block of recv (a subview).
template <class SendView, class RecvView>
absl::Status AllGather(Communicator& comm, const SendView& send, const RecvView& recv,
                       const CallOptions& options = {}) {
  return views_internal::RunCall(comm, views_internal::AllGatherCall(comm, send, recv), options);
}
template <class SendView, class RecvView>
Request IAllGather(Communicator& comm, const SendView& send, const RecvView& recv, const CallOptions& options = {}) {
  return views_internal::IssueCall(comm, views_internal::AllGatherCall(comm, send, recv), options);
}

// Broadcast of root's send into every rank's recv. The count is recv's extent; send is read on the root only,
// where its extent must match (elsewhere it may be empty). The one-View form is in place.
template <class SendView, class RecvView>
absl::Status Broadcast(Communicator& comm, const SendView& send, const RecvView& recv, int root,
                       const CallOptions& options = {}) {
  return views_internal::RunCall(comm, views_internal::BroadcastCall(comm, send, recv, root), options);
}
template <class View>
absl::Status Broadcast(Communicator& comm, const View& view, int root, const CallOptions& options = {}) {
  return Broadcast(comm, view, view, root, options);
}
template <class SendView, class RecvView>
Request IBroadcast(Communicator& comm, const SendView& send, const RecvView& recv, int root,
                   const CallOptions& options = {}) {
  return views_internal::IssueCall(comm, views_internal::BroadcastCall(comm, send, recv, root), options);
}
template <class View>
Request IBroadcast(Communicator& comm, const View& view, int root, const CallOptions& options = {}) {
  return IBroadcast(comm, view, view, root, options);
}

// Reduce of every rank's send into root's recv. The count is send's extent; recv is written on the root only,
// where its extent must match (elsewhere it may be empty).
template <class SendView, class RecvView>
absl::Status Reduce(Communicator& comm, const SendView& send, const RecvView& recv, ReduceOp op, int root,
                    const CallOptions& options = {}) {
  return views_internal::RunCall(comm, views_internal::ReduceCall(comm, send, recv, op, root), options);
}
template <class SendView, class RecvView>
Request IReduce(Communicator& comm, const SendView& send, const RecvView& recv, ReduceOp op, int root,
                const CallOptions& options = {}) {
  return views_internal::IssueCall(comm, views_internal::ReduceCall(comm, send, recv, op, root), options);
}

// AllToAll: send and recv have the same extent, nranks blocks each (so the extent must divide by nranks).
template <class SendView, class RecvView>
absl::Status AllToAll(Communicator& comm, const SendView& send, const RecvView& recv, const CallOptions& options = {}) {
  return views_internal::RunCall(comm, views_internal::AllToAllCall(comm, send, recv), options);
}
template <class SendView, class RecvView>
Request IAllToAll(Communicator& comm, const SendView& send, const RecvView& recv, const CallOptions& options = {}) {
  return views_internal::IssueCall(comm, views_internal::AllToAllCall(comm, send, recv), options);
}

// Gather of every rank's send into root's recv (nranks blocks of send's extent; elsewhere recv may be empty).
template <class SendView, class RecvView>
absl::Status Gather(Communicator& comm, const SendView& send, const RecvView& recv, int root,
                    const CallOptions& options = {}) {
  return views_internal::RunCall(comm, views_internal::GatherCall(comm, send, recv, root), options);
}
template <class SendView, class RecvView>
Request IGather(Communicator& comm, const SendView& send, const RecvView& recv, int root,
                const CallOptions& options = {}) {
  return views_internal::IssueCall(comm, views_internal::GatherCall(comm, send, recv, root), options);
}

// Scatter of root's send (nranks blocks of recv's extent; elsewhere send may be empty) into every rank's recv.
template <class SendView, class RecvView>
absl::Status Scatter(Communicator& comm, const SendView& send, const RecvView& recv, int root,
                     const CallOptions& options = {}) {
  return views_internal::RunCall(comm, views_internal::ScatterCall(comm, send, recv, root), options);
}
template <class SendView, class RecvView>
Request IScatter(Communicator& comm, const SendView& send, const RecvView& recv, int root,
                 const CallOptions& options = {}) {
  return views_internal::IssueCall(comm, views_internal::ScatterCall(comm, send, recv, root), options);
}

// SendRecv (rank r sends to r+1, receives from r-1): send and recv have the same extent.
template <class SendView, class RecvView>
absl::Status SendRecv(Communicator& comm, const SendView& send, const RecvView& recv, const CallOptions& options = {}) {
  return views_internal::RunCall(comm, views_internal::SendRecvCall(send, recv), options);
}
template <class SendView, class RecvView>
Request ISendRecv(Communicator& comm, const SendView& send, const RecvView& recv, const CallOptions& options = {}) {
  return views_internal::IssueCall(comm, views_internal::SendRecvCall(send, recv), options);
}

// A registered buffer (Communicator::Allocate) of `count` elements as an unmanaged View of `MemorySpace`: host memory,
// or device memory on a communicator with CUDA kernels (Kokkos::CudaSpace); collectives on such views run zero-copy
// when every rank passes one. Collective, as Allocate; give it back with FreeView.
template <class T, class MemorySpace = Kokkos::HostSpace>
using RegisteredView = Kokkos::View<T*, MemorySpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

template <class T, class MemorySpace = Kokkos::HostSpace>
absl::StatusOr<RegisteredView<T, MemorySpace>> AllocateView(Communicator& comm, size_t count) {
  static_assert(std::is_trivially_copyable<T>::value, "registered views hold plain data");
  const MemoryKind wanted = MemoryKindOf<RegisteredView<T, MemorySpace>>();
  // Every rank refuses alike (the kernels, and so the memory kind, are the same everywhere), before the collective
  // Allocate.
  if (wanted != comm.registered_memory()) {
    return absl::InvalidArgumentError(
        absl::StrCat("AllocateView: the memory space ", MemorySpace::name(), " holds ", MemoryKindName(wanted),
                     " memory, but this communicator registers ", MemoryKindName(comm.registered_memory()),
                     " memory (its kernels' space: ",
                     comm.registered_memory() == MemoryKind::kDevice ? "Kokkos::CudaSpace" : "Kokkos::HostSpace", ")"));
  }
  absl::StatusOr<void*> data = comm.Allocate(count * sizeof(T));
  if (!data.ok()) return data.status();
  return RegisteredView<T, MemorySpace>(static_cast<T*>(*data), count);
}

template <class T, class MemorySpace>
absl::Status FreeView(Communicator& comm, const RegisteredView<T, MemorySpace>& view) {
  return comm.Free(view.data());
}

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_VIEWS_H_
