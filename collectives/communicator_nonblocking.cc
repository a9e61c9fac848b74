// The nonblocking calls: each hands its blocking form to the way the communicator progresses (choose_progress.h).
// On the progress thread the call is the blocking one, run later; on a stream it is the blocking one without its
// final synchronisation; eagerly it is the blocking one, now.
#include <utility>

#include "absl/strings/str_cat.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/communicator.h"
#include "collectives/communicator_state.h"
#include "collectives/inline_request.h"

namespace kcoll {
void Communicator::Settle() const {
  if (ProgressThread::RunningACall()) return;  // a call that reaches an entry point on its own way
  if (state_->pending_inline != nullptr) {
    // The latest call issued, and nothing is queued behind it.
    std::shared_ptr<InlineRequest> pending = state_->pending_inline;
    const_cast<Communicator*>(this)->FinishInline(*pending).IgnoreError();  // its request reports the result
  }
  if (state_->progress_thread != nullptr) state_->progress_thread->Drain();
  TallyRepeatedInline();
}

const std::string& Communicator::progress() const { return state_->progress.reason; }

absl::Status Communicator::SynchronizeStream() {
  if (finalized()) return state_->stream_calls->final_result;
  absl::Status synchronized = state_->transport->Synchronize();
  if (!synchronized.ok()) return Break(synchronized);
  state_->stream_calls->synchronized_through = state_->stream_calls->last_mark;
  return synchronized;
}

// Every nonblocking call enters here: the I-method of each collective builds its CollectiveCall.
Request Communicator::ICall(const CollectiveCall& call) {
  if (finalized()) {
    return CompletedRequest(absl::InvalidArgumentError(
        absl::StrCat(CollectiveName(call.collective), ": communicator used after Finalize()")));
  }
  if (state_->group_depth > 0) {
    return CompletedRequest(absl::InvalidArgumentError(
        absl::StrCat(CollectiveName(call.collective),
                     ": a nonblocking call inside GroupStart/GroupEnd (a group is one nonblocking batch already: "
                     "issue the blocking forms there)")));
  }
  const bool thread = state_->progress.way == ProgressWay::kThread;
  if (state_->pending_inline != nullptr) {
    // A published inline AllReduce folds before this call runs: on the progress thread, queued ahead of it; else now.
    std::shared_ptr<InlineRequest> pending = std::move(state_->pending_inline);
    if (thread) {
      if (state_->progress_thread == nullptr) state_->progress_thread = std::make_unique<ProgressThread>();
      pending->set_finisher(state_->progress_thread->Submit([this, pending] { return FinishInline(*pending); }));
    } else {
      FinishInline(*pending).IgnoreError();
    }
  }
  // A small AllReduce or scan on the inline lane publishes now and folds when waited for, when nothing runs before it.
  if (state_->progress.way != ProgressWay::kStream &&
      (state_->progress_thread == nullptr || state_->progress_thread->Idle()) && TakesInlineLane(call)) {
    return StartInline(ArgsOf(call));
  }
  switch (state_->progress.way) {
    case ProgressWay::kThread:
      if (state_->progress_thread == nullptr) state_->progress_thread = std::make_unique<ProgressThread>();
      return Request(state_->progress_thread->Submit([this, call] { return Dispatch(call); }));
    case ProgressWay::kStream: {
      // A rank-ordered AllReduce is several calls with folds between: it runs now, as an eager call does.
      if (NeedsRankOrder(call)) break;
      absl::Status issued = RunStages(call, /*synchronize=*/false);
      if (!issued.ok()) return CompletedRequest(std::move(issued));
      absl::StatusOr<uint64_t> mark = state_->transport->MarkPosted();
      if (!mark.ok()) return CompletedRequest(Break(mark.status()));
      state_->stream_calls->last_mark = *mark;
      return Request(std::make_shared<StreamRequest>(state_->stream_calls, *mark));
    }
    case ProgressWay::kEager:
      break;
  }
  return CompletedRequest(Dispatch(call));
}

Request Communicator::ICall(Collective collective, const void* send, void* recv, size_t count, DataType type,
                            ReduceOp op, int root, const CallOptions& options, MemoryKind memory) {
  if (IsVariable(collective)) {
    Settle();
    return CompletedRequest(absl::InvalidArgumentError(
        absl::StrCat(CollectiveName(collective), ": ICall has no counts arrays to keep until completion; call ",
                     "its own I-method")));
  }
  return ICall(CollectiveCall::Named(collective, send, recv, count, type, op, root, options, memory));
}

}  // namespace kcoll
