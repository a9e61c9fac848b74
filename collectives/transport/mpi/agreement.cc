#include "collectives/transport/mpi/agreement.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "collectives/transport/call_tracking.h"
#include "collectives/transport/mpi/mpi_wait.h"

namespace kcoll {

absl::Status AgreeAcrossRanks(MPI_Comm comm, const absl::Status& local, absl::string_view what) {
  int nranks = 1;
  MPI_Comm_size(comm, &nranks);
  int ok = local.ok() ? 1 : 0;
  std::vector<int> oks(nranks);
  MPI_Allgather(&ok, 1, MPI_INT, oks.data(), 1, MPI_INT, comm);
  std::vector<int> failed;
  for (int r = 0; r < nranks; ++r) {
    if (!oks[r]) failed.push_back(r);
  }
  if (failed.empty()) return absl::OkStatus();
  const std::string where = absl::StrCat("failed on rank(s) ", absl::StrJoin(failed, ", "));
  if (!local.ok()) return absl::Status(local.code(), absl::StrCat(local.message(), " [", what, " ", where, "]"));
  return absl::FailedPreconditionError(absl::StrCat(what, " ", where, " (see their errors)"));
}

namespace {

constexpr int kAgreementTag = 7301;  // point-to-point on the control communicator: this and the stall report

// The state of one agreement, on the heap: a wait that times out leaves its requests to MPI, which may still write
// into these buffers later, so they are then never freed.
struct RootedAgreement {
  int mine = 0;                    // the lowest rejecting rank below this one in the tree (P: none)
  std::vector<int> from_children;  // what each child sent up
  int result = 0;                  // the lowest rejecting rank of all, from the parent
  std::vector<int> children;       // ranks
  int parent = -1;                 // rank; -1 at the root
  std::vector<MPI_Request> requests;
  std::vector<PendingTransfer> pending;  // what requests[i] is, for a timeout's message
};

}  // namespace

absl::Status AgreeOnAcceptanceOverMpi(MPI_Comm comm, const CallToAgreeOn& call, const absl::Status& local) {
  int rank = 0, nranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  if (nranks == 1) return local;
  const auto start = std::chrono::steady_clock::now();
  auto a = std::make_unique<RootedAgreement>();
  // The binomial tree rooted at rank 0: rank v's parent is v without its lowest set bit, its children v + 2^k for
  // every 2^k below that bit.
  const int v = rank;
  const int low_bit = v == 0 ? nranks : (v & -v);
  for (int k = 1; k < low_bit && v + k < nranks; k <<= 1) a->children.push_back(v + k);
  if (v != 0) a->parent = v - low_bit;
  a->from_children.assign(a->children.size(), nranks);
  std::vector<int> scratch;
  int step = 0;
  // Waits for the posted requests; on a timeout the error names the ranks whose messages did not complete.
  const auto wait = [&]() -> absl::Status {
    const int count = static_cast<int>(a->requests.size());
    absl::StatusOr<bool> done = WaitForRequests(a->requests.data(), count, call.timeout, &scratch);
    if (!done.ok()) return done.status();
    if (*done) {
      a->requests.clear();
      a->pending.clear();
      ++step;
      return absl::OkStatus();
    }
    std::vector<PendingTransfer> left;
    for (int i = 0; i < count; ++i) {
      if (a->requests[i] != MPI_REQUEST_NULL) left.push_back(a->pending[i]);
    }
    TimedOutCall timed_out;
    timed_out.collective = call.collective;
    timed_out.algorithm = call.algorithm;
    timed_out.rank = rank;
    timed_out.timeout = call.timeout;
    timed_out.timeout_source = call.timeout_source;
    timed_out.step = step;
    timed_out.seconds_since_call_began =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    a.release();  // left to MPI: see RootedAgreement
    return TransfersTimedOut(timed_out, left,
                             "; the ranks were agreeing on their arguments, before any data moved: a peer stopped, "
                             "died, or called another collective");
  };
  const auto post = [&](bool send, int peer, int* value) -> absl::Status {
    a->requests.emplace_back();
    a->pending.push_back(PendingTransfer{send, peer, sizeof(int)});
    const int code = send ? MPI_Isend(value, 1, MPI_INT, peer, kAgreementTag, comm, &a->requests.back())
                          : MPI_Irecv(value, 1, MPI_INT, peer, kAgreementTag, comm, &a->requests.back());
    if (code != MPI_SUCCESS) {
      return absl::InternalError(absl::StrCat(call.collective, ": the argument agreement's ",
                                              send ? "MPI_Isend" : "MPI_Irecv", " failed: ", MpiErrorString(code)));
    }
    return absl::OkStatus();
  };
  // In: the lowest rejecting rank of each subtree travels to the root.
  a->mine = local.ok() ? nranks : rank;
  for (size_t i = 0; i < a->children.size(); ++i) {
    KCOLL_RETURN_IF_ERROR(post(false, a->children[i], &a->from_children[i]));
  }
  if (!a->children.empty()) KCOLL_RETURN_IF_ERROR(wait());
  for (int lowest : a->from_children) a->mine = std::min(a->mine, lowest);
  if (a->parent >= 0) {
    KCOLL_RETURN_IF_ERROR(post(true, a->parent, &a->mine));
    KCOLL_RETURN_IF_ERROR(post(false, a->parent, &a->result));
    KCOLL_RETURN_IF_ERROR(wait());
  } else {
    a->result = a->mine;
  }
  // Out: the answer travels back down.
  for (int child : a->children) KCOLL_RETURN_IF_ERROR(post(true, child, &a->result));
  if (!a->children.empty()) KCOLL_RETURN_IF_ERROR(wait());
  const int first = a->result;
  if (first >= nranks) return absl::OkStatus();
  // Only on this error path does the rejecting rank's message travel.
  return RelayRejection(comm, call.collective, first, local, call.timeout);
}

absl::Status RelayRejection(MPI_Comm comm, absl::string_view call, int first, const absl::Status& local,
                            absl::Duration timeout) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // On the heap: a timed-out broadcast cannot be cancelled, and MPI may still write into it later.
  auto message = std::make_unique<char[]>(kRejectionMessageBytes);
  std::fill_n(message.get(), kRejectionMessageBytes, '\0');
  if (rank == first) std::string(local.message()).copy(message.get(), kRejectionMessageBytes - 1);
  std::vector<int> scratch;
  absl::StatusOr<bool> sent =
      BroadcastWithin(message.get(), kRejectionMessageBytes, MPI_CHAR, first, comm, timeout, &scratch);
  if (!sent.ok()) {
    return absl::InternalError(
        absl::StrCat(call, ": relaying rank ", first, "'s rejection: ", sent.status().message()));
  }
  if (!*sent) {
    message.release();  // left to MPI: see above
    return absl::DeadlineExceededError(absl::StrCat(call, ": rank ", first,
                                                    " rejected its arguments, but its message did not arrive within ",
                                                    absl::FormatDuration(timeout)));
  }
  if (!local.ok()) return local;
  return RejectedOnAnotherRank(call, first, message.get());
}

}  // namespace kcoll
