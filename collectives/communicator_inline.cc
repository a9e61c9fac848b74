// The inline lane of AllReduce, Scan and ExScan: an `auto` call small enough for the node's inline exchange skips the
// general path's algorithm lookup, registered-buffer check and transport bookkeeping, which cost as much as the
// exchange itself at 8 bytes. It still refuses what the general path refuses (by leaving such calls to it), counts the
// call, and breaks the communicator on a timeout.

#include <chrono>
#include <cstdint>
#include <iterator>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/strings/str_cat.h"
#include "base/names.h"
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/argument_comparison.h"
#include "collectives/communicator.h"
#include "collectives/communicator_state.h"
#include "collectives/inline_path.h"
#include "collectives/inline_request.h"
#include "collectives/kernels/backend.h"
#include "collectives/kernels/host_reduce.h"
#include "collectives/observability/describe.h"
#include "collectives/observability/log.h"
#include "collectives/transport/mpi/mpi_finalize_watch.h"
#include "models/analysis/statistics.h"

namespace kcoll {

// algorithms/all_reduce/inline.cc: the exchange's two halves, publishing and folding, for the three collectives.
absl::Status InlineStart(const CollectiveArgs& args, Resources& res);
absl::Status InlineFinish(const CollectiveArgs& args, Resources& res);

bool Communicator::TakesInlineLane(const CollectiveCall& call) const {
  // (A value outside the enumeration shifts by less than 32 or finds no bit: the lanes are bits 0-31.)
  const uint32_t bit = static_cast<uint32_t>(call.collective) < 32 ? 1u << static_cast<uint32_t>(call.collective) : 0;
  if ((state_->inline_lanes & bit) == 0 || call.options.algorithm != Algorithm::kAuto ||
      call.memory != MemoryKind::kHost)
    return false;
  // What the general path would refuse or treat apart goes there: bad arguments get its errors (a count whose byte
  // size overflows among them), kAvg its division, a broken communicator its message.
  if (call.count == 0 || call.send == nullptr || call.recv == nullptr || !IsValid(call.type) || !IsValid(call.op) ||
      call.op == ReduceOp::kAvg) {
    return false;
  }
  if (call.count > state_->inline_max_bytes / DataTypeSize(call.type)) return false;
  if (!state_->broken.ok() || state_->transport == nullptr) return false;
  // In place, or apart: a partial overlap is the general path's error.
  const size_t bytes = call.count * DataTypeSize(call.type);
  const uintptr_t s = reinterpret_cast<uintptr_t>(call.send), r = reinterpret_cast<uintptr_t>(call.recv);
  if (bytes >= state_->vendor_from_bytes && HandsToVendor(call, bytes)) return false;  // measured faster in MPI
  return s == r || s + bytes <= r || r + bytes <= s;
}

// The most ranks a repeated call folds from an array on the stack; more take the general path.
constexpr int kRepeatMaxRanks = 64;

absl::Status Communicator::SetInlineLimit(std::optional<size_t> pinned) {
  constexpr uint32_t kAllReduceLane = 1u << static_cast<uint32_t>(Collective::kAllReduce);
  // What RepeatsInlineAllReduce needs of the communicator that is fixed from creation on, checked here once. Whether
  // the ranks take turns on the cores is the spin policy's test (the union of their affinity masks against their
  // number), the same on every rank.
  const InlineExchange* exchange = state_->inline_exchange.get();
  state_->repeat_lane = exchange != nullptr && !exchange->ranks_take_turns() && exchange->size() <= kRepeatMaxRanks &&
                        (state_->inline_lanes & kAllReduceLane) != 0 && !state_->logger.Enabled(LogLevel::kTrace);
  state_->inline_max_bytes = pinned.value_or(kDefaultInlineMaxBytes);
  if (pinned.has_value()) {
    state_->inline_limit_reason = "from KCOLL_INLINE_MAX_BYTES";
    return absl::OkStatus();
  }
  if ((state_->inline_lanes & kAllReduceLane) == 0) {
    state_->inline_limit_reason = "the default (not measured: KCOLL_ALGO names the algorithm or KCOLL_CHECK_ARGS=1)";
    return absl::OkStatus();
  }
  state_->measuring_inline_limit = true;
  absl::Status measured = MeasureInlineLimit();
  state_->measuring_inline_limit = false;
  if (!measured.ok()) state_->inline_max_bytes = kDefaultInlineMaxBytes;
  // The application's calls start from a clean slate.
  ResetCounters();
  state_->calls_begun = 0;
  state_->transport_call = 0;
  state_->current_collective = "none";
  state_->last_choice.valid = false;
  return measured;
}

absl::Status Communicator::MeasureInlineLimit() {
  // Rounds alternate which way goes first; the first round warms both up and is not kept. Zeros in place stay zeros.
  constexpr int kRounds = 6, kCallsPerTiming = 8;
  constexpr size_t kCandidates = std::size(kInlineCandidateBytes);
  std::vector<float> buffer(kInlineCandidateBytes[kCandidates - 1] / sizeof(float), 0.0f);
  auto seconds_per_call = [&](size_t bytes, size_t limit) -> absl::StatusOr<double> {
    state_->inline_max_bytes = limit;  // the lane takes `bytes` with the largest limit, never with 0
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kCallsPerTiming; ++i) {
      KCOLL_RETURN_IF_ERROR(
          AllReduce(buffer.data(), buffer.data(), bytes / sizeof(float), DataType::kFloat32, ReduceOp::kSum));
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / kCallsPerTiming;
  };
  std::vector<std::vector<double>> inline_times(kCandidates), slot_times(kCandidates);
  for (int round = 0; round < kRounds; ++round) {
    for (size_t i = 0; i < kCandidates; ++i) {
      for (int way = 0; way < 2; ++way) {
        const bool lane = (way + round) % 2 == 0;
        absl::StatusOr<double> s =
            seconds_per_call(kInlineCandidateBytes[i], lane ? InlineExchange::kMaxPayloadBytes : 0);
        if (!s.ok()) return s.status();
        if (round > 0) (lane ? inline_times : slot_times)[i].push_back(*s);
      }
    }
  }
  // Every rank decides from the same numbers: each median's largest across ranks.
  std::vector<double> medians;
  for (size_t i = 0; i < kCandidates; ++i) {
    medians.push_back(models::Median(inline_times[i]));
    medians.push_back(models::Median(slot_times[i]));
  }
  state_->inline_max_bytes = InlineExchange::kMaxPayloadBytes;
  KCOLL_RETURN_IF_ERROR(AllReduce(medians.data(), medians.data(), medians.size(), DataType::kFloat64, ReduceOp::kMax));
  std::vector<InlineTiming> timings;
  for (size_t i = 0; i < kCandidates; ++i) {
    timings.push_back(InlineTiming{kInlineCandidateBytes[i], medians[2 * i], medians[2 * i + 1]});
  }
  state_->inline_max_bytes = ChooseInlineLimit(timings);
  state_->inline_limit_reason = absl::StrCat("measured at creation (", DescribeInlineTimings(timings), ")");
  return absl::OkStatus();
}

// Defined before AllReduce and inlined there: a repeated call's own instructions are most of an 8-byte call beyond its
// exchange, and a function's frame is a tenth of them.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool Communicator::RepeatsInlineAllReduce(const void* send, void* recv,
                                                                              size_t count, DataType type, ReduceOp op,
                                                                              const CallOptions& options,
                                                                              MemoryKind memory) const {
  const CommunicatorState& state = *state_;
  const InlineCallMemo& memo = state.inline_memo;
  // The memo's own conditions were checked when it was made (InlineCallMemo::repeatable), the communicator's fixed
  // ones at its creation (repeat_lane); each check left here costs the 8-byte call about a nanosecond.
  if (!memo.repeatable || count != memo.count || type != memo.type || op != memo.op ||
      options.algorithm != Algorithm::kAuto || options.numerics.has_value() ||
      options.tuning.nchannels != memo.tuning.nchannels || options.tuning.chunk_bytes != memo.tuning.chunk_bytes ||
      memory != MemoryKind::kHost || send == nullptr || recv == nullptr) {
    return false;
  }
  // What TakesInlineLane and Settle would see, and what would make the call's error another path's.
  if (!state.repeat_lane || memo.payload_bytes > state.inline_max_bytes || state.transport == nullptr ||
      !state.broken.ok() || state.group_depth > 0 || state.pending_inline != nullptr ||
      state.progress_thread != nullptr) {
    return false;
  }
  if (memo.payload_bytes >= state.vendor_from_bytes &&
      HandsToVendor(CollectiveCall::AllReduce(send, recv, count, type, op, options, memory), memo.payload_bytes)) {
    return false;
  }
  if (MpiFinalizeBegun() || !KokkosRunning()) return false;  // (a finalized communicator has no transport)
  const uintptr_t s = reinterpret_cast<uintptr_t>(send), r = reinterpret_cast<uintptr_t>(recv);
  const size_t bytes = memo.payload_bytes;
  return s == r || s + bytes <= r || r + bytes <= s;
}

// Call(const CollectiveCall&) and Call(Collective, ...) hand their AllReduces here.
absl::Status Communicator::AllReduce(const void* send, void* recv, size_t count, DataType type, ReduceOp op,
                                     const CallOptions& options, MemoryKind memory) {
  if (RepeatsInlineAllReduce(send, recv, count, type, op, options, memory)) return RunRepeatedInline(send, recv, count);
  Settle();
  return Dispatch(CollectiveCall::AllReduce(send, recv, count, type, op, options, memory));
}

absl::Status Communicator::RunRepeatedInline(const void* send, void* recv, size_t count) {
  CommunicatorState& state = *state_;
  InlineCallMemo& memo = state.inline_memo;
  InlineExchange& exchange = *state.inline_exchange;
  // The names are looked up once: the lookups cost about 100 instructions a call.
  static const absl::string_view kCollective = CollectiveName(Collective::kAllReduce);
  static const absl::string_view kAlgorithm = AlgorithmName(Algorithm::kInline);
  exchange.BeginCall(Transport::CallInfo{kCollective, kAlgorithm, memo.signature, &state.clock, 0});
  exchange.PublishWithinLimit(send, memo.payload_bytes);  // (payload_bytes is at most the inline limit)
  // The payload is out first: the peers' wait for it does not include what follows, which overlaps this rank's wait
  // for theirs. Only the timed calls (one in kRepeatTimedEvery) read the clock; another call that fails takes its
  // start from its wait (InlineExchange::SetCallStart) or from the moment it failed.
  const bool timed = memo.untallied_calls % InlineCallMemo::kRepeatTimedEvery == 0;
  uint64_t start = timed ? state.clock.Now() : 0;
  exchange.SetCallStart(start);
  state.NoteCallBegun(kCollective, start);  // (inline, with the name looked up once)
  absl::Status status = exchange.AwaitAll();
  if (!status.ok()) {
    if (start == 0) start = exchange.call_start() != 0 ? exchange.call_start() : state.clock.Now();
    state.current_call_start = start;
    // The call as its caller made it: the memo's arguments are this call's (RepeatsInlineAllReduce).
    const CallOptions options{Algorithm::kAuto, memo.tuning, std::nullopt};
    const CollectiveCall call = CollectiveCall::AllReduce(send, recv, count, memo.type, memo.op, options);
    return EndInline(ArgsOf(call), start, status);  // counts it, and breaks on a timeout
  }
  const int n = exchange.size();
  const unsigned char* inputs[kRepeatMaxRanks];
  for (int r = 0; r < n; ++r) inputs[r] = exchange.Payload(r);
  inputs[exchange.rank()] = static_cast<const unsigned char*>(send);  // see InlineFinish (inline.cc)
  memo.fold(static_cast<unsigned char*>(recv), inputs, n, count);     // inline.cc's fold, in rank order
  // Counted when the counters are next read (TallyRepeatedInline); timed one in kRepeatTimedEvery.
  ++memo.untallied_calls;
  if (timed) {
    memo.timed_ticks += state.clock.Now() - start;
    ++memo.timed_calls;
  }
  return status;
}

void Communicator::TallyRepeatedInline() const {
  InlineCallMemo& memo = state_->inline_memo;
  if (memo.untallied_calls == 0) return;
  Counters& counters = state_->counters;
  counters.total.AddTimes(memo.primitives, memo.untallied_calls);
  CollectiveCounts& entry = memo.EntryIn(counters);
  entry.calls += memo.untallied_calls;
  entry.bytes += memo.bytes * memo.untallied_calls;
  // (The first repeat after a tally is timed: timed_calls is at least 1 here.)
  entry.seconds += state_->clock.Seconds(memo.timed_ticks) / static_cast<double>(memo.timed_calls) *
                   static_cast<double>(memo.untallied_calls);
  entry.primitives.AddTimes(memo.primitives, memo.untallied_calls);
  memo.DropUntallied();
}

uint64_t Communicator::BeginInline(const CollectiveArgs& args) {
  const uint64_t start = state_->clock.Now();
  NoteCallBegun(args.collective, start);
  InlineCallMemo& memo = state_->inline_memo;
  if (!memo.Matches(args)) {
    TallyRepeatedInline();
    memo = MakeInlineCallMemo(args, rank(), size());
  }
  state_->inline_exchange->BeginCall(
      Transport::CallInfo{CollectiveName(args.collective), "inline", memo.signature, &state_->clock, start});
  return start;
}

absl::Status Communicator::EndInline(const CollectiveArgs& args, uint64_t start, absl::Status status) {
  const double seconds = state_->clock.Seconds(state_->clock.Now() - start);
  // What Record does, from the memo BeginInline left (made again if a call in between replaced it).
  InlineCallMemo& memo = state_->inline_memo;
  if (!memo.Matches(args)) {
    TallyRepeatedInline();
    memo = MakeInlineCallMemo(args, rank(), size());
  }
  const CallRecord call{args.collective,
                        Algorithm::kInline,
                        args.count,
                        args.type,
                        args.op,
                        args.root,
                        memo.bytes,
                        seconds,
                        status.ok() ? memo.primitives : PrimitiveCounts()};
  state_->counters.total += call.primitives;
  Tally(call, memo.EntryIn(state_->counters), status);
  // Every rank publishes before it looks at the others: only a timeout leaves the ranks out of step.
  if (status.code() == absl::StatusCode::kDeadlineExceeded) return Break(status);
  return status;
}

absl::Status Communicator::RunInlineLane(const CollectiveArgs& args) {
  KCOLL_RETURN_IF_ERROR(CheckUsable(CollectiveName(args.collective)));
  const uint64_t start = BeginInline(args);
  Resources resources{*state_->transport, *state_->kernels, state_->topology};
  resources.inline_exchange = state_->inline_exchange.get();
  absl::Status status = InlineStart(args, resources);
  if (status.ok()) status = InlineFinish(args, resources);
  return EndInline(args, start, status);
}

Request Communicator::StartInline(const CollectiveArgs& args) {
  if (absl::Status usable = CheckUsable(CollectiveName(args.collective)); !usable.ok()) return CompletedRequest(usable);
  const uint64_t start = BeginInline(args);
  Resources resources{*state_->transport, *state_->kernels, state_->topology};
  resources.inline_exchange = state_->inline_exchange.get();
  auto request = std::make_shared<InlineRequest>(this, args, start);
  // Publishing fails only before anything is written: the ranks stay in step.
  if (absl::Status published = InlineStart(args, resources); !published.ok()) {
    request->Complete(published);
    return Request(request);
  }
  state_->pending_inline = request;
  return Request(request);
}

absl::Status Communicator::FinishInline(InlineRequest& request) {
  if (request.done()) return request.result();
  Resources resources{*state_->transport, *state_->kernels, state_->topology};
  resources.inline_exchange = state_->inline_exchange.get();
  const absl::Status status = EndInline(request.args(), request.start(), InlineFinish(request.args(), resources));
  request.Complete(status);
  // On the application's thread the request may still be the pending one; the progress thread never sees it there.
  if (!ProgressThread::RunningACall() && state_->pending_inline.get() == &request) state_->pending_inline.reset();
  return status;
}

absl::Status InlineRequest::Wait() {
  if (done()) return result_;
  if (finisher_ != nullptr) {
    finisher_->Wait().IgnoreError();  // the fold's status is this request's result
    return result_;
  }
  return comm_->FinishInline(*this);
}

absl::StatusOr<bool> InlineRequest::Test() {
  if (done()) return true;
  if (finisher_ != nullptr) return finisher_->Test();
  if (!comm_->state_->inline_exchange->AllPublished()) return false;
  comm_->FinishInline(*this).IgnoreError();  // every rank published: this returns at once
  return true;
}

}  // namespace kcoll
