// What every transport keeps of the collective call its transfers belong to, and the argument checks and timeout
// error they all word alike. A transport derives from CallTrackingTransport and writes only its data movement: it
// checks a transfer with CheckTransfer, counts its waits with NextStep, and on a timeout describes what is pending.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_CALL_TRACKING_H_
#define KCOLL_COLLECTIVES_TRANSPORT_CALL_TRACKING_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "collectives/transport/transport.h"

namespace kcoll {

// A transfer still pending when a wait timed out: `peer` as the transport names ranks in messages.
struct PendingTransfer {
  bool send = false;
  int peer = 0;
  size_t bytes = 0;
};

// What a timeout error names about the call that timed out.
struct TimedOutCall {
  absl::string_view collective;  // "all_reduce"
  absl::string_view algorithm;   // "ring"
  int rank = 0;                  // the rank that waited
  absl::Duration timeout;
  absl::string_view timeout_source;  // "KCOLL_TIMEOUT"; empty: "timeout"
  int step = 0;
  double seconds_since_call_began = 0;
};

// The DeadlineExceeded of a wait in which no transfer completed for the timeout, worded alike wherever a call waits:
// the call, the algorithm, the rank, the step, the time since the call began, the ranks whose transfers did not
// complete (the first few described), then `diagnosis` (why, if the waiter can tell) or the usual causes.
absl::Status TransfersTimedOut(const TimedOutCall& call, const std::vector<PendingTransfer>& pending,
                               const std::string& diagnosis);

// A timed-out wait's step and the ranks it waited for travel with its error, as a payload (TransfersTimedOut attaches
// them), for the report in which the ranks compare their positions (mpi/stall_report.h).
absl::Status WithWaitedPeers(absl::Status status, int step, const std::vector<int>& peers);
// What WithWaitedPeers attached; false when nothing was.
bool WaitedPeers(const absl::Status& status, int* step, std::vector<int>* peers);

// The InvalidArgument a rank returns when rank `rejecting` refused its own arguments of `call` and the ranks agreed
// not to run it: "gather: rank 0 rejected its arguments, so no rank ran the call: <that rank's message>".
absl::Status RejectedOnAnotherRank(absl::string_view call, int rejecting, absl::string_view message);
// How much of a rejecting rank's message travels to the others.
inline constexpr size_t kRejectionMessageBytes = 512;

class CallTrackingTransport : public Transport {
 public:
  int rank() const final { return rank_; }
  int size() const final { return size_; }

  // Starts call `call`: its sequence number advances, its steps count from 0, its clock starts.
  void BeginCall(const CallInfo& call) override;

  // The longest a wait may go without any of its transfers completing (absl::InfiniteDuration(): no limit).
  // `source` names the setting in the error ("KCOLL_TIMEOUT").
  void set_timeout(absl::Duration timeout, std::string source);
  absl::Duration timeout() const { return timeout_; }

  std::vector<int> HeardFrom() const override;

 protected:
  CallTrackingTransport(int rank, int size) : rank_(rank), size_(size) {}

  using Pending = PendingTransfer;

  const CallInfo& call() const { return call_; }
  // "all_reduce (ring)": the call and its algorithm, as every message names them.
  std::string CallName() const;
  // Counts the calls begun so far (1 for the first): the same on every rank for the same call.
  uint32_t call_sequence() const { return call_sequence_; }
  int step() const { return step_; }
  // Each wait of a call is its next step (named in errors).
  void NextStep() { ++step_; }
  // Seconds since the call began.
  double SecondsSinceCallBegan() const;
  const std::string& timeout_source() const { return timeout_source_; }

  // InvalidArgument naming `what` ("Send", "Recv") and the value when `peer` is not in [0, size()), a buffer is
  // null for a non-empty transfer, or `tag` is not in [0, max_tag) (max_tag 0: tags are not checked).
  absl::Status CheckTransfer(absl::string_view what, int peer, const void* data, size_t bytes, int tag,
                             int max_tag) const;

  // A receive from `peer` (named as in messages) completed, or part of one arrived, in this call.
  void NoteReceived(int peer) {
    if (peer >= static_cast<int>(heard_in_call_.size())) heard_in_call_.resize(peer + 1, 0);
    heard_in_call_[peer] = call_sequence_;
  }

  // TransfersTimedOut for this call, at its current step.
  absl::Status TimedOut(int rank, const std::vector<Pending>& pending, const std::string& diagnosis) const;

 private:
  const int rank_;
  const int size_;
  CallInfo call_{"transfer", "no call", 0};
  uint32_t call_sequence_ = 0;
  int step_ = 0;
  std::chrono::steady_clock::time_point call_start_ = std::chrono::steady_clock::now();  // without call_.clock
  absl::Duration timeout_ = absl::InfiniteDuration();
  std::string timeout_source_;
  // Per peer, the call sequence number of the last call a receive from it completed in (0: none).
  std::vector<uint32_t> heard_in_call_;
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_CALL_TRACKING_H_
