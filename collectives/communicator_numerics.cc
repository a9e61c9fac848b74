// numerics=deterministic (options.h): an AllReduce of floating-point data whose bits depend only on the ranks' data and
// their count. Every element's contributions are combined in rank order, ((x0 op x1) op x2) ... op x(n-1), the order in
// which the inline lane already folds (all_reduce/inline.cc), so a call gets the same bits on that lane and here:
//
// - up to kGatherMaxBytes per rank, every rank all-gathers every rank's contribution and folds them in rank order
//   (one latency-bound all-gather);
// - above it, the elements are cut into n blocks, rank j owning block j: an all-to-all brings each owner its block
//   from every rank, in rank order, the owner folds them, and an all-gather of the folded blocks fills every rank's
//   result (the traffic of a reduce-scatter and an all-gather, as a ring's).
//
// The phases move data exactly, whatever algorithm, transport or chunking moves them; the folds are elementwise
// kernels, the same on every execution space. Integer and order-free ops are not affected by the mode (their results do
// not depend on the order); min and max of floating-point data are ordered too (with NaNs, their result does).
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "collectives/communicator.h"
#include "collectives/communicator_state.h"
#include "collectives/validate.h"

namespace kcoll {
namespace {

// Above this many bytes per rank the owners fold their blocks (all-to-all, then all-gather): gathering every
// contribution on every rank costs n times the data.
constexpr size_t kGatherMaxBytes = size_t{16} << 10;
constexpr int kGatheredSlot = Communicator::kWrapperScratchSlot + 8;
constexpr int kFoldedSlot = Communicator::kWrapperScratchSlot + 9;

bool IsFloating(DataType type) {
  return type == DataType::kFloat16 || type == DataType::kBfloat16 || type == DataType::kFloat32 ||
         type == DataType::kFloat64;
}

}  // namespace

Numerics Communicator::NumericsOf(const CollectiveCall& call) const {
  return call.options.numerics.value_or(state_->numerics);
}

bool Communicator::NeedsRankOrder(const CollectiveCall& call) const {
  return call.collective == Collective::kAllReduce && NumericsOf(call) == Numerics::kDeterministic &&
         IsValid(call.type) && IsFloating(call.type) && IsValid(call.op);
}

absl::Status Communicator::FoldInRankOrder(ReduceOp op, DataType type, void* out, const char* contributions,
                                           size_t stride_bytes, size_t count) {
  const size_t bytes = count * DataTypeSize(type);
  Kernels& kernels = *state_->kernels;
  if (size() == 1) return kernels.Copy(out, contributions, bytes, bytes);
  KCOLL_RETURN_IF_ERROR(kernels.Reduce(op, type, out, contributions, contributions + stride_bytes, count));
  for (int r = 2; r < size(); ++r) {
    KCOLL_RETURN_IF_ERROR(kernels.Reduce(op, type, out, out, contributions + r * stride_bytes, count));
  }
  return absl::OkStatus();
}

absl::Status Communicator::RunInRankOrder(const CollectiveCall& call) {
  const CollectiveArgs args = ArgsOf(call);
  const absl::string_view name = CollectiveName(call.collective);
  KCOLL_RETURN_IF_ERROR(CheckUsable(name));
  KCOLL_RETURN_IF_ERROR(Validate(args, call.memory));
  // An algorithm asked for by name (or by KCOLL_ALGO) combines in its own order, except the inline one.
  Algorithm named = call.options.algorithm;
  const size_t index = static_cast<size_t>(call.collective);
  if (named == Algorithm::kAuto && index < state_->algo_override.size()) {
    KCOLL_ASSIGN_OR_RETURN(std::optional<Algorithm> from_env, state_->algo_override[index]);
    named = from_env.value_or(Algorithm::kAuto);
  }
  if (named == Algorithm::kInline) return RunStages(call, /*synchronize=*/true);
  if (named != Algorithm::kAuto) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": algorithm ", AlgorithmName(named), " combines the ranks' terms in an order of its own and cannot ",
        "honour numerics=deterministic (use auto or inline, or numerics=fast)"));
  }
  if (call.count == 0) return RunStages(call, /*synchronize=*/true);
  const size_t n = static_cast<size_t>(size()), elem = DataTypeSize(call.type), count = call.count;
  // The phases move bytes exactly; they take auto's algorithms and this call's memory.
  CallOptions phase;
  phase.numerics = Numerics::kFast;
  const ReduceOp fold_op = call.op == ReduceOp::kAvg ? ReduceOp::kSum : call.op;
  Kernels& kernels = *state_->kernels;
  if (count * elem <= kGatherMaxBytes) {
    KCOLL_ASSIGN_OR_RETURN(void* gathered, kernels.Scratch(kGatheredSlot, n * count * elem));
    KCOLL_RETURN_IF_ERROR(
        Dispatch(CollectiveCall::AllGather(call.send, gathered, count, call.type, phase, call.memory)));
    KCOLL_RETURN_IF_ERROR(
        FoldInRankOrder(fold_op, call.type, call.recv, static_cast<const char*>(gathered), count * elem, count));
    if (call.op == ReduceOp::kAvg) KCOLL_RETURN_IF_ERROR(kernels.Divide(call.type, call.recv, count, size()));
    return absl::OkStatus();
  }
  // Rank j owns the elements [start[j], start[j] + counts[j]).
  std::vector<size_t> counts(n), starts(n), mine(n, 0), at_mine(n);
  for (size_t j = 0, start = 0; j < n; ++j) {
    counts[j] = count / n + (j < count % n ? 1 : 0);
    starts[j] = start;
    start += counts[j];
  }
  const size_t own = counts[static_cast<size_t>(rank())];
  for (size_t j = 0; j < n; ++j) {
    mine[j] = own;
    at_mine[j] = j * own;
  }
  KCOLL_ASSIGN_OR_RETURN(void* blocks, kernels.Scratch(kGatheredSlot, n * own * elem));
  KCOLL_ASSIGN_OR_RETURN(void* folded, kernels.Scratch(kFoldedSlot, own * elem));
  KCOLL_RETURN_IF_ERROR(Dispatch(CollectiveCall::AllToAllV(call.send, counts.data(), starts.data(), blocks, mine.data(),
                                                           at_mine.data(), call.type, phase, call.memory)));
  KCOLL_RETURN_IF_ERROR(FoldInRankOrder(fold_op, call.type, folded, static_cast<const char*>(blocks), own * elem, own));
  if (call.op == ReduceOp::kAvg) KCOLL_RETURN_IF_ERROR(kernels.Divide(call.type, folded, own, size()));
  return Dispatch(
      CollectiveCall::AllGatherV(folded, own, call.recv, counts.data(), starts.data(), call.type, phase, call.memory));
}

}  // namespace kcoll
