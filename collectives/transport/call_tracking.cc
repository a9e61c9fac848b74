#include "collectives/transport/call_tracking.h"

#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace kcoll {
namespace {

// How many pending transfers a timeout describes one by one.
constexpr size_t kDescribedTransfers = 4;

}  // namespace

void CallTrackingTransport::BeginCall(const CallInfo& call) {
  call_ = call;
  ++call_sequence_;
  step_ = 0;
  if (call.clock == nullptr) call_start_ = std::chrono::steady_clock::now();
}

std::string CallTrackingTransport::CallName() const {
  return absl::StrCat(call_.collective, " (", call_.algorithm, ")");
}

void CallTrackingTransport::set_timeout(absl::Duration timeout, std::string source) {
  timeout_ = timeout;
  timeout_source_ = std::move(source);
}

std::string CallTrackingTransport::SecondsSinceCallBegan() const {
  const double s = call_.clock != nullptr
                       ? call_.SecondsSinceStart()
                       : std::chrono::duration<double>(std::chrono::steady_clock::now() - call_start_).count();
  return absl::StrFormat("%.3f s", s);
}

absl::Status CallTrackingTransport::CheckTransfer(absl::string_view what, int peer, const void* data, size_t bytes,
                                                  int tag, int max_tag) const {
  if (peer < 0 || peer >= size_) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": peer ", peer, " is not a rank in [0, ", size_, ")"));
  }
  if (data == nullptr && bytes > 0) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": null buffer for ", bytes, " bytes"));
  }
  if (max_tag > 0 && (tag < 0 || tag >= max_tag)) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": tag ", tag, " is not in [0, ", max_tag, ")"));
  }
  return absl::OkStatus();
}

absl::Status CallTrackingTransport::TimedOut(int rank, const std::vector<Pending>& pending,
                                             const std::string& diagnosis) const {
  std::set<int> peers;
  std::vector<std::string> described;
  for (const Pending& p : pending) {
    peers.insert(p.peer);
    if (described.size() < kDescribedTransfers) {
      described.push_back(p.send ? absl::StrCat("send of ", p.bytes, " B to rank ", p.peer)
                                 : absl::StrCat("receive of ", p.bytes, " B from rank ", p.peer));
    }
  }
  const size_t more = pending.size() - described.size();
  return absl::DeadlineExceededError(
      absl::StrCat(call_.collective, " (", call_.algorithm, ") on rank ", rank, ": no transfer completed for ",
                   absl::FormatDuration(timeout_), " (", timeout_source_.empty() ? "timeout" : timeout_source_,
                   ") at step ", step_, ", ", SecondsSinceCallBegan(),
                   " after the call began; ranks whose transfers did not complete: ", absl::StrJoin(peers, ", "), " (",
                   absl::StrJoin(described, ", "), more > 0 ? absl::StrCat(", and ", more, " more") : "", ")",
                   diagnosis.empty() ? "; a peer stopped, died, or called with different arguments" : diagnosis));
}

}  // namespace kcoll
