#include "collectives/transport/call_tracking.h"

#include <set>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

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

double CallTrackingTransport::SecondsSinceCallBegan() const {
  return call_.clock != nullptr ? call_.SecondsSinceStart()
                                : std::chrono::duration<double>(std::chrono::steady_clock::now() - call_start_).count();
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

namespace {
constexpr absl::string_view kWaitedPeersUrl = "kcoll/waited_peers";
}  // namespace

absl::Status WithWaitedPeers(absl::Status status, int step, const std::vector<int>& peers) {
  status.SetPayload(kWaitedPeersUrl, absl::Cord(absl::StrCat(step, ":", absl::StrJoin(peers, ","))));
  return status;
}

bool WaitedPeers(const absl::Status& status, int* step, std::vector<int>* peers) {
  const auto payload = status.GetPayload(kWaitedPeersUrl);
  if (!payload.has_value()) return false;
  const std::string text(*payload);
  const size_t colon = text.find(':');
  if (colon == std::string::npos || !absl::SimpleAtoi(text.substr(0, colon), step)) return false;
  peers->clear();
  for (absl::string_view field : absl::StrSplit(text.substr(colon + 1), ',', absl::SkipEmpty())) {
    int peer = 0;
    if (absl::SimpleAtoi(field, &peer)) peers->push_back(peer);
  }
  return true;
}

absl::Status TransfersTimedOut(const TimedOutCall& call, const std::vector<PendingTransfer>& pending,
                               const std::string& diagnosis) {
  std::set<int> peers;
  std::vector<std::string> described;
  for (const PendingTransfer& p : pending) {
    peers.insert(p.peer);
    if (described.size() < kDescribedTransfers) {
      described.push_back(p.send ? absl::StrCat("send of ", p.bytes, " B to rank ", p.peer)
                                 : absl::StrCat("receive of ", p.bytes, " B from rank ", p.peer));
    }
  }
  const size_t more = pending.size() - described.size();
  const absl::Status error = absl::DeadlineExceededError(absl::StrCat(
      call.collective, " (", call.algorithm, ") on rank ", call.rank, ": no transfer completed for ",
      absl::FormatDuration(call.timeout), " (", call.timeout_source.empty() ? "timeout" : call.timeout_source,
      ") at step ", call.step, ", ", absl::StrFormat("%.3f s", call.seconds_since_call_began),
      " after the call began; ranks whose transfers did not complete: ", absl::StrJoin(peers, ", "), " (",
      absl::StrJoin(described, ", "), more > 0 ? absl::StrCat(", and ", more, " more") : "", ")",
      diagnosis.empty() ? "; a peer stopped, died, or called with different arguments" : diagnosis));
  return WithWaitedPeers(error, call.step, std::vector<int>(peers.begin(), peers.end()));
}

absl::Status RejectedOnAnotherRank(absl::string_view call, int rejecting, absl::string_view message) {
  return absl::InvalidArgumentError(
      absl::StrCat(call, ": rank ", rejecting, " rejected its arguments, so no rank ran the call: ", message));
}

std::vector<int> CallTrackingTransport::HeardFrom() const {
  std::vector<int> heard;
  for (size_t peer = 0; peer < heard_in_call_.size(); ++peer) {
    if (heard_in_call_[peer] == call_sequence_ && call_sequence_ != 0) heard.push_back(static_cast<int>(peer));
  }
  return heard;
}

absl::Status CallTrackingTransport::TimedOut(int rank, const std::vector<Pending>& pending,
                                             const std::string& diagnosis) const {
  TimedOutCall call;
  call.collective = call_.collective;
  call.algorithm = call_.algorithm;
  call.rank = rank;
  call.timeout = timeout_;
  call.timeout_source = timeout_source_;
  call.step = step_;
  call.seconds_since_call_began = SecondsSinceCallBegan();
  return TransfersTimedOut(call, pending, diagnosis);
}

}  // namespace kcoll
