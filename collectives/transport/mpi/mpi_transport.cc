#include "collectives/transport/mpi/mpi_transport.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace kcoll {
namespace {

// Tag layout, low to high: the schedule's tag, the call's sequence number, as much of the signature as fits.
constexpr int kScheduleTagBits = 8;
constexpr int kSequenceBits = 4;
constexpr uint32_t kSequenceMask = (1u << kSequenceBits) - 1;
static_assert(MpiTransport::kMaxTag == 1 << kScheduleTagBits, "kMaxTag is the schedule tag's range");

// How long Abandon waits for MPI to withdraw a cancelled receive before it gives up and ends the job.
constexpr auto kCancelGrace = std::chrono::seconds(2);

absl::Status FromMpi(int code, absl::string_view call) {
  if (code == MPI_SUCCESS) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(call, " failed: ", MpiErrorString(code)));
}

// Bits of tag MPI allows on `comm` (MPI_TAG_UB is at least 32767; Open MPI's is 2^31 - 1).
int TagBits(MPI_Comm comm) {
  int* upper = nullptr;
  int found = 0;
  MPI_Comm_get_attr(comm, MPI_TAG_UB, &upper, &found);
  const long long bound = (found && upper != nullptr) ? *upper : 32767;
  int bits = 0;
  while (bits < 31 && (1LL << (bits + 1)) - 1 <= bound) ++bits;
  return bits;
}

// Duplications that did not complete within Create's timeout. MPI may complete one later (the network came back),
// and a duplicate left half made crashes Open MPI's MPI_Finalize: MPI_Finalize first deletes MPI_COMM_SELF's
// attributes, and the callback below then gives each one a bounded chance to complete and frees what it made.
struct UnfinishedDuplication {
  MPI_Request request;
  MPI_Comm* comm;
};
std::vector<UnfinishedDuplication>& Unfinished() {
  static auto* unfinished = new std::vector<UnfinishedDuplication>();
  return *unfinished;
}

int FinishDuplications(MPI_Comm, int, void*, void*) {
  constexpr auto kGrace = std::chrono::seconds(1);
  for (UnfinishedDuplication& u : Unfinished()) {
    const auto deadline = std::chrono::steady_clock::now() + kGrace;
    int done = 0;
    while (MPI_Test(&u.request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (done && *u.comm != MPI_COMM_NULL) MPI_Comm_free(u.comm);
  }
  Unfinished().clear();
  return MPI_SUCCESS;
}

void LeaveToFinalize(MPI_Request request, MPI_Comm* comm) {
  if (Unfinished().empty()) {
    int keyval = MPI_KEYVAL_INVALID;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, FinishDuplications, &keyval, nullptr) == MPI_SUCCESS) {
      MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr);
    }
  }
  Unfinished().push_back({request, comm});
}

}  // namespace

absl::StatusOr<std::unique_ptr<MpiTransport>> MpiTransport::Create(MPI_Comm comm, absl::Duration timeout,
                                                                   absl::string_view timeout_source) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) return absl::FailedPreconditionError("MPI is not initialized: call MPI_Init first");
  if (comm == MPI_COMM_NULL) return absl::InvalidArgumentError("comm: MPI_COMM_NULL is not a communicator");
  MPI_Comm dup = MPI_COMM_NULL;
  if (timeout == absl::InfiniteDuration()) {
    if (absl::Status s = FromMpi(MPI_Comm_dup(comm, &dup), "MPI_Comm_dup"); !s.ok()) return s;
  } else {
    // On the heap: a duplication that does not complete stays with MPI, which may still write the handle later.
    auto pending = std::make_unique<MPI_Comm>(MPI_COMM_NULL);
    MPI_Request request = MPI_REQUEST_NULL;
    if (absl::Status s = FromMpi(MPI_Comm_idup(comm, pending.get(), &request), "MPI_Comm_idup"); !s.ok()) return s;
    std::vector<int> scratch;
    absl::StatusOr<bool> done = WaitForRequests(&request, 1, timeout, &scratch);
    if (!done.ok()) return done.status();
    if (!*done) {
      LeaveToFinalize(request, pending.release());
      int size = 0;
      MPI_Comm_size(comm, &size);
      return absl::DeadlineExceededError(absl::StrCat(
          "Create: the ", size, " ranks did not all take part in duplicating the MPI communicator within ",
          absl::FormatDuration(timeout), " (", timeout_source.empty() ? "timeout" : timeout_source,
          "): a rank has not called Create (it stopped, died, or is busy elsewhere), or the ranks cannot reach each "
          "other (a host's network link down)"));
    }
    dup = *pending;
  }
  // Errors on kcoll's communicator come back as codes (turned into absl::Status) instead of aborting the job.
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  int rank = 0, size = 0;
  MPI_Comm_rank(dup, &rank);
  MPI_Comm_size(dup, &size);
  const int signature_bits = std::max(0, std::min(32, TagBits(dup) - kScheduleTagBits - kSequenceBits));
  return std::unique_ptr<MpiTransport>(new MpiTransport(dup, rank, size, signature_bits));
}

MpiTransport::~MpiTransport() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  if (!requests_.empty() && !abandoned_) {
    if (!WaitAll().ok()) Abandon();
  }
  if (!abandoned_) MPI_Comm_free(&comm_);  // an abandoned communicator is kept (see the header)
}

bool MpiTransport::CanReach(MemoryKind memory) const {
  // Device memory needs a CUDA-aware MPI, which the communicator detects and reports through set_device_memory.
  return memory == MemoryKind::kHost || device_memory_;
}

int MpiTransport::MpiTag(int tag) const {
  const uint32_t signature =
      signature_bits_ >= 32 ? call().signature : call().signature & ((1u << signature_bits_) - 1);
  return static_cast<int>((signature << (kScheduleTagBits + kSequenceBits)) |
                          ((call_sequence() & kSequenceMask) << kScheduleTagBits) | static_cast<uint32_t>(tag));
}

absl::StatusOr<Transport::Request> MpiTransport::Post(bool send, int peer, void* data, size_t bytes, int tag) {
  if (absl::Status s = CheckTransfer(send ? "Send" : "Recv", peer, data, bytes, tag, kMaxTag); !s.ok()) return s;
  const int mpi_tag = MpiTag(tag);
  const int first = static_cast<int>(requests_.size());
  size_t offset = 0;
  do {  // a zero-byte transfer is still one message, so both sides agree on the message count
    const size_t piece = std::min(bytes - offset, max_piece_bytes_);
    char* at = static_cast<char*>(data) + offset;
    MPI_Request request = MPI_REQUEST_NULL;
    const int code = send ? MPI_Isend(at, static_cast<int>(piece), MPI_BYTE, peer, mpi_tag, comm_, &request)
                          : MPI_Irecv(at, static_cast<int>(piece), MPI_BYTE, peer, mpi_tag, comm_, &request);
    if (absl::Status s = FromMpi(code, send ? "MPI_Isend" : "MPI_Irecv"); !s.ok()) return s;
    requests_.push_back(request);
    posted_.push_back(Posted{send, peer, piece});
    offset += piece;
  } while (offset < bytes);
  ranges_.emplace_back(first, static_cast<int>(requests_.size()) - first);
  return Request{static_cast<int>(ranges_.size()) - 1};
}

absl::StatusOr<Transport::Request> MpiTransport::Send(int peer, const void* data, size_t bytes, int tag) {
  return Post(/*send=*/true, peer, const_cast<void*>(data), bytes, tag);
}

absl::StatusOr<Transport::Request> MpiTransport::Recv(int peer, void* data, size_t bytes, int tag) {
  return Post(/*send=*/false, peer, data, bytes, tag);
}

absl::StatusOr<bool> MpiTransport::Progress() {
  if (requests_.empty()) return false;
  int done = 0;
  if (static_cast<int>(completed_.size()) < static_cast<int>(requests_.size())) completed_.resize(requests_.size());
  const int code =
      MPI_Testsome(static_cast<int>(requests_.size()), requests_.data(), &done, completed_.data(), MPI_STATUSES_IGNORE);
  if (code != MPI_SUCCESS) return absl::InternalError(absl::StrCat("MPI_Testsome failed: ", MpiErrorString(code)));
  return done != MPI_UNDEFINED && done > 0;
}

absl::Status MpiTransport::Complete(int first, int count) {
  NextStep();
  std::function<absl::StatusOr<bool>()> other;
  if (companion_ != nullptr) other = [this] { return companion_->Progress(); };
  absl::StatusOr<bool> done = WaitForRequests(requests_.data() + first, count, timeout(), &completed_, other);
  if (!done.ok()) return done.status();
  for (int i = first; i < first + count; ++i) {  // completed requests are null
    if (!posted_[i].send && requests_[i] == MPI_REQUEST_NULL) NoteReceived(posted_[i].peer);
  }
  if (!*done) return TimedOut(first, count);
  return absl::OkStatus();
}

absl::Status MpiTransport::Wait(Request request) {
  if (request.id < 0 || request.id >= static_cast<int>(ranges_.size())) {
    return absl::InvalidArgumentError(absl::StrCat("Wait: request ", request.id, " is not pending"));
  }
  const auto [first, count] = ranges_[request.id];
  return Complete(first, count);
}

absl::Status MpiTransport::WaitAll() {
  absl::Status s = Complete(0, static_cast<int>(requests_.size()));
  if (!s.ok()) return s;  // the pending requests stay for Abandon
  requests_.clear();
  posted_.clear();
  ranges_.clear();
  return s;
}

std::string MpiTransport::DiagnosePeer(int peer) const {
  int found = 0;
  MPI_Status status;
  if (MPI_Iprobe(peer, MPI_ANY_TAG, comm_, &found, &status) != MPI_SUCCESS || !found) return "";
  // Messages of this call that a receive has not been posted for yet carry this call's tag bits above the
  // schedule's; anything else from this peer belongs to a call this rank is not in.
  const uint32_t mine = static_cast<uint32_t>(MpiTag(0)) >> kScheduleTagBits;
  const uint32_t theirs = static_cast<uint32_t>(status.MPI_TAG) >> kScheduleTagBits;
  if (theirs == mine) return "";
  if ((theirs & kSequenceMask) == (mine & kSequenceMask)) {
    return absl::StrCat("; rank ", peer,
                        " sent a message of this call with different arguments (count, type, op, root or algorithm: "
                        "KCOLL_CHECK_ARGS=1 names the field)");
  }
  return absl::StrCat("; rank ", peer, " sent a message of another call (the ranks called different collectives)");
}

absl::Status MpiTransport::TimedOut(int first, int count) const {
  std::vector<Pending> pending;
  std::set<int> receiving_from;
  for (int i = first; i < first + count; ++i) {
    if (requests_[i] == MPI_REQUEST_NULL) continue;
    const Posted& p = posted_[i];
    pending.push_back({p.send, p.peer, p.bytes});
    if (!p.send) receiving_from.insert(p.peer);
  }
  std::string diagnosis;
  for (int peer : receiving_from) diagnosis += DiagnosePeer(peer);
  return CallTrackingTransport::TimedOut(rank(), pending, diagnosis);
}

void MpiTransport::Abandon() {
  abandoned_ = true;
  for (size_t i = 0; i < requests_.size(); ++i) {
    MPI_Request& request = requests_[i];
    if (request == MPI_REQUEST_NULL) continue;
    if (posted_[i].send) {
      // The peer may still read the buffer; nothing is written into it.
      MPI_Request_free(&request);
      continue;
    }
    MPI_Cancel(&request);
    const auto deadline = std::chrono::steady_clock::now() + kCancelGrace;
    int done = 0;
    while (MPI_Test(&request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    if (!done) {
      std::fprintf(stderr,
                   "kcoll: %s on rank %d: MPI could not withdraw a receive of %zu B from rank %d after a failure; "
                   "ending the job rather than let it write into the caller's buffer later\n",
                   CallName().c_str(), rank(), posted_[i].bytes, posted_[i].peer);
      MPI_Abort(comm_, 1);
    }
  }
  requests_.clear();
  posted_.clear();
  ranges_.clear();
}

absl::Status MpiTransport::Quiesce(absl::Duration timeout) {
  if (abandoned_) return absl::OkStatus();
  absl::Status barrier = FinalizeBarrier(comm_, timeout, &completed_);
  if (absl::IsDeadlineExceeded(barrier)) {
    abandoned_ = true;  // the barrier stays pending on a communicator that is kept
    return absl::DeadlineExceededError(absl::StrCat(barrier.message(), "; the MPI communicator is kept"));
  }
  if (!barrier.ok()) return barrier;
  // Every message sent before the barrier has arrived (MPI keeps each pair's messages in order on a communicator).
  int found = 0;
  MPI_Status status;
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &found, &status);
  if (found) {
    abandoned_ = true;
    return absl::DataLossError(absl::StrCat("rank ", status.MPI_SOURCE,
                                            " sent a message no call on this rank received (the ranks' arguments "
                                            "differed in some call); the MPI communicator is kept"));
  }
  return absl::OkStatus();
}

}  // namespace kcoll
