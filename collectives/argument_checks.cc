#include "collectives/argument_checks.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "collectives/call_sizes.h"

namespace kcoll {

namespace {

// Where recv starts relative to send (in bytes) when the call is in place, per NCCL's conventions (AllGatherV: send
// is the rank's own block of recv, at its displacement; ReduceScatterV: recv is the rank's own block of send, after
// the blocks of the ranks before it); AllToAllV has no in-place form.
std::optional<std::ptrdiff_t> InPlaceRecvOffset(const CollectiveArgs& args, int rank) {
  if (!HasInPlaceForm(args.collective)) return std::nullopt;
  const std::ptrdiff_t block = static_cast<std::ptrdiff_t>(args.count * DataTypeSize(args.type));
  switch (args.collective) {
    case Collective::kAllGatherV:
      return -static_cast<std::ptrdiff_t>(args.recv_displs[rank] * DataTypeSize(args.type));
    case Collective::kGatherV:  // the root's own block of recv
      return -static_cast<std::ptrdiff_t>(args.recv_displs[rank] * DataTypeSize(args.type));
    case Collective::kScatterV:  // the root's own block of send
      return static_cast<std::ptrdiff_t>(args.send_displs[rank] * DataTypeSize(args.type));
    case Collective::kReduceScatterV: {  // the rank's own block of send
      size_t before = 0;
      for (int j = 0; j < rank; ++j) before += args.recv_counts[j];
      return static_cast<std::ptrdiff_t>(before * DataTypeSize(args.type));
    }
    case Collective::kAllGather:
    case Collective::kGather:
      return -rank * block;  // send == recv + rank * count
    case Collective::kReduceScatter:
    case Collective::kScatter:
      return rank * block;  // recv == send + rank * count
    default:
      return 0;  // send == recv
  }
}

}  // namespace

bool HasInPlaceForm(Collective collective) { return collective != Collective::kAllToAllV; }

namespace {

absl::string_view InPlaceRule(Collective c) {
  switch (c) {
    case Collective::kAllGather:
    case Collective::kGather:
      return "sendbuf == recvbuf + rank * count";
    case Collective::kReduceScatter:
    case Collective::kScatter:
      return "recvbuf == sendbuf + rank * count";
    case Collective::kAllGatherV:
      return "sendbuf == recvbuf + recvdispls[rank]";
    case Collective::kAllToAllV:
      return "separate buffers (alltoallv has no in-place form)";
    case Collective::kReduceScatterV:
      return "recvbuf == sendbuf + recvcounts[0] + ... + recvcounts[rank - 1]";
    case Collective::kGatherV:
      return "sendbuf == recvbuf + recvdispls[root] on the root";
    case Collective::kScatterV:
      return "recvbuf == sendbuf + senddispls[root] on the root";
    default:
      return "sendbuf == recvbuf";
  }
}

absl::Status CheckOverlap(const CollectiveArgs& args, int rank, size_t send_bytes, size_t recv_bytes) {
  if (send_bytes == 0 || recv_bytes == 0) return absl::OkStatus();
  const uintptr_t send = reinterpret_cast<uintptr_t>(args.send), recv = reinterpret_cast<uintptr_t>(args.recv);
  if (send + send_bytes <= recv || recv + recv_bytes <= send) return absl::OkStatus();
  const std::ptrdiff_t offset = static_cast<std::ptrdiff_t>(recv - send);
  if (offset == InPlaceRecvOffset(args, rank)) return absl::OkStatus();  // nullopt: never
  return absl::InvalidArgumentError(absl::StrCat(CollectiveName(args.collective),
                                                 ": sendbuf and recvbuf overlap (recvbuf - sendbuf = ", offset,
                                                 " bytes) but not in place, which needs ", InPlaceRule(args.collective),
                                                 " (rank ", rank, ", count ", args.count, ")"));
}

// The v-collectives' arrays: present, each block's end representable in bytes, and AllGatherV's own block as long
// as its send count.
absl::Status ValidateCounts(const CollectiveArgs& args, int rank, int nranks) {
  const absl::string_view name = CollectiveName(args.collective);
  const size_t limit = std::numeric_limits<size_t>::max() / DataTypeSize(args.type);
  auto check = [&](const size_t* counts, const char* counts_name, const size_t* displs,
                   const char* displs_name) -> absl::Status {
    if (counts == nullptr) return absl::InvalidArgumentError(absl::StrCat(name, ": ", counts_name, " is null"));
    if (displs == nullptr) return absl::InvalidArgumentError(absl::StrCat(name, ": ", displs_name, " is null"));
    for (int j = 0; j < nranks; ++j) {
      if (counts[j] > limit || displs[j] > limit - counts[j]) {
        return absl::InvalidArgumentError(absl::StrCat(name, ": ", displs_name, "[", j, "] = ", displs[j], " + ",
                                                       counts_name, "[", j, "] = ", counts[j],
                                                       " overflows the byte size"));
      }
    }
    return absl::OkStatus();
  };
  switch (args.collective) {
    case Collective::kAllToAllV:
      KCOLL_RETURN_IF_ERROR(check(args.recv_counts, "recvcounts", args.recv_displs, "recvdispls"));
      return check(args.send_counts, "sendcounts", args.send_displs, "senddispls");
    case Collective::kReduceScatterV: {
      if (args.recv_counts == nullptr) return absl::InvalidArgumentError(absl::StrCat(name, ": recvcounts is null"));
      size_t total = 0;
      for (int j = 0; j < nranks; ++j) {
        if (args.recv_counts[j] > limit - total) {
          return absl::InvalidArgumentError(absl::StrCat(name, ": recvcounts sum past recvcounts[", j,
                                                         "] = ", args.recv_counts[j], " overflows the byte size"));
        }
        total += args.recv_counts[j];
      }
      return absl::OkStatus();
    }
    case Collective::kGatherV:
    case Collective::kScatterV: {
      if (rank != args.root) return absl::OkStatus();  // the counts are the root's alone
      const bool gather = args.collective == Collective::kGatherV;
      KCOLL_RETURN_IF_ERROR(gather ? check(args.recv_counts, "recvcounts", args.recv_displs, "recvdispls")
                                   : check(args.send_counts, "sendcounts", args.send_displs, "senddispls"));
      const size_t own = gather ? args.recv_counts[rank] : args.send_counts[rank];
      if (args.count != own) {
        return absl::InvalidArgumentError(absl::StrCat(name, ": the root's ", gather ? "sendcount " : "recvcount ",
                                                       args.count, " differs from its ",
                                                       gather ? "recvcounts[" : "sendcounts[", rank, "] = ", own));
      }
      return absl::OkStatus();
    }
    default:  // AllGatherV
      break;
  }
  KCOLL_RETURN_IF_ERROR(check(args.recv_counts, "recvcounts", args.recv_displs, "recvdispls"));
  if (args.count != args.recv_counts[rank]) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": sendcount ", args.count, " differs from recvcounts[", rank,
                                                   "] = ", args.recv_counts[rank],
                                                   " (every rank's recvcounts[j] is rank j's sendcount)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckArguments(const CollectiveArgs& args, int rank, int nranks, MemoryKind memory, bool reachable) {
  const absl::string_view name = CollectiveName(args.collective);
  if (!IsValid(args.type)) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": type ", static_cast<int>(args.type), " is not a kcoll DataType"));
  }
  if (Reduces(args.collective) && !IsValid(args.op)) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": op ", static_cast<int>(args.op), " is not a kcoll ReduceOp"));
  }
  if (IsRooted(args.collective) && (args.root < 0 || args.root >= nranks)) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": root ", args.root, " is not a rank in [0, ", nranks, ")"));
  }
  const size_t elem = DataTypeSize(args.type);
  if (IsVariable(args.collective)) KCOLL_RETURN_IF_ERROR(ValidateCounts(args, rank, nranks));
  if (args.count > std::numeric_limits<size_t>::max() / elem / static_cast<size_t>(nranks)) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": count ", args.count, " overflows the byte size"));
  }
  const size_t send_count = SendCount(args, rank, nranks);
  const size_t recv_count = RecvCount(args, rank, nranks);
  if (send_count > 0 && args.send == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": sendbuf is null with count ", args.count));
  }
  if (recv_count > 0 && args.recv == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": recvbuf is null with count ", args.count));
  }
  if (!reachable && (send_count > 0 || recv_count > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": buffers in ",
                                                   memory == MemoryKind::kHost ? "host" : "device",
                                                   " memory are not reachable by this communicator's transport"));
  }
  if (absl::Status s = CheckOverlap(args, rank, send_count * elem, recv_count * elem); !s.ok()) return s;
  if (args.options.nchannels < 0) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": nchannels ", args.options.nchannels, " is negative"));
  }
  return absl::OkStatus();
}

}  // namespace kcoll
