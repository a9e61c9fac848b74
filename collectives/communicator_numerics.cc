// numerics=deterministic (options.h): reductions of floating-point data whose bits depend only on the ranks' data and
// their count. Every element's contributions are combined in rank order, ((x0 op x1) op x2) ... op x(n-1), the order in
// which the inline lane already folds (all_reduce/inline.cc), so a call gets the same bits on that lane and here. The
// schedules move the data exactly with auto's algorithms (numerics=fast phases) and fold with the elementwise kernels:
//
// - AllReduce up to kGatherMaxBytes per rank: every rank all-gathers every contribution and folds them in rank order
//   (one latency-bound all-gather). Above it, "owner computes": the elements are cut into n blocks, rank j owning
//   block j; an all-to-all brings each owner its block from every rank, in rank order, the owner folds them, and an
//   all-gather of the folded blocks fills every rank's result (the traffic of a reduce-scatter and an all-gather).
//   For float and double the all-to-all and the fold are one phase: the linear ReduceScatterV, which folds each copy
//   in rank order as it arrives (reduced out of the shared-memory slots, piece by piece while the fold is in cache),
//   the same steps in the same order. In place, the owner's block of the input is the ReduceScatterV's in place.
//   From kRankOrderFusedMinBlockBytes a block, the linear AllReduce runs all three as one pipeline: each folded
//   piece goes to every rank while it is in the owner's cache (all_reduce/linear.cc). On 2 and 4 ranks between
//   kRankOrderHalvingAboveBytes and kRankOrderHalvingMaxBytes, ordered_halving_doubling takes halving-doubling's
//   log2(n) pairwise steps each way instead, carrying raw terms where a prefix cannot form yet.
// - ReduceScatter(V): the owners are the ranks whose blocks the call defines; the all-to-all and the fold alone.
// - Reduce: small, the root gathers every contribution and folds; large, the owners fold and the root gathers the
//   folded blocks.
// - Scan and ExScan: small, every rank all-gathers and folds the contributions of ranks 0..r (0..r-1); large, each
//   owner computes every rank's prefix of its block, left to right, and an all-to-all returns prefix r to rank r.
//   A prefix is the same fold, so rank r's Scan holds the bits of an AllReduce over ranks 0..r.
//
// On two ranks a sum or product needs none of this: each element is x0 op x1 whichever rank computes it. Nor does an
// exact sum of AllReduce, Reduce or ReduceScatter(V) there: the fast schedules run, each of their sums an exact sum of
// the two terms (kernels/exact_pair_kernels.h), at fast's memory traffic.
//
// numerics=exact (collectives/kernels/exact_sum.h) runs the same schedules with another fold: each element's exact
// sum of its terms (the window chosen by all n ranks' terms, which every schedule has at hand: the gathered
// contributions, or an owner's block from every rank), one pass per element with no intermediate array. A scan's
// prefix sums the first r terms in the window of all n. On two ranks it does not take fast's schedule: x0 + x1
// rounds the terms' full sum, an exact sum the sum of their truncations. Other ops of floating-point data combine in
// rank order, as numerics=deterministic.
#include <functional>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "collectives/call_sizes.h"
#include "collectives/communicator.h"
#include "collectives/communicator_state.h"
#include "collectives/kernels/exact_sum.h"

namespace kcoll {
namespace {

// Above this many bytes per rank the owners fold their blocks: gathering every contribution on every rank costs n
// times the data.
constexpr size_t kGatherMaxBytes = size_t{16} << 10;
constexpr int kGatheredSlot = Communicator::kWrapperScratchSlot + 8;
constexpr int kFoldedSlot = Communicator::kWrapperScratchSlot + 9;

bool IsFloating(DataType type) {
  return type == DataType::kFloat16 || type == DataType::kBfloat16 || type == DataType::kFloat32 ||
         type == DataType::kFloat64;
}

bool IsPowerOfTwo(int n) { return n > 0 && (n & (n - 1)) == 0; }

bool HasRankOrderedForm(Collective c) {
  return c == Collective::kAllReduce || c == Collective::kReduceScatter || c == Collective::kReduceScatterV ||
         c == Collective::kReduce || c == Collective::kScan || c == Collective::kExScan;
}

// Which elements each rank owns: rank j folds [starts[j], starts[j] + counts[j]).
struct Owners {
  std::vector<size_t> counts, starts;
  size_t Own(int rank) const { return counts[static_cast<size_t>(rank)]; }
};

Owners EvenOwners(size_t count, int n) {
  Owners o;
  for (size_t j = 0, start = 0; j < static_cast<size_t>(n); ++j) {
    o.counts.push_back(count / n + (j < count % n ? 1 : 0));
    o.starts.push_back(start);
    start += o.counts.back();
  }
  return o;
}

Owners OwnersOf(const size_t* counts, int n) {
  Owners o;
  for (size_t j = 0, start = 0; j < static_cast<size_t>(n); ++j) {
    o.counts.push_back(counts[j]);
    o.starts.push_back(start);
    start += counts[j];
  }
  return o;
}

// What a rank-ordered schedule needs: the call, a way to run its data-movement phases, and the kernels.
struct RankOrder {
  const CollectiveCall& call;
  std::function<absl::Status(const CollectiveCall&)> move;  // runs a phase with numerics=fast
  Kernels& kernels;
  int rank;
  int n;
  ReduceOp op;  // the fold's op: kSum for kAvg
  size_t elem;
  CallOptions phase;
  bool exact;         // numerics=exact's sum
  bool one_node_shm;  // host buffers on one node over shared memory, where every pair folds on arrival

  // out = contributions 0 op 1 op ... op (terms-1), in that order, `stride` elements apart; terms >= 1. One pass
  // (Kernels::FoldInOrder): 16-bit floats accumulate in float and round once. An exact sum instead: the exact sum of
  // the first `terms` in the window of all n (Kernels::ExactFold), which every schedule here has at hand.
  absl::Status Fold(void* out, const void* contributions, size_t stride, size_t count, int terms) const {
    if (exact) return kernels.ExactFold(call.type, out, contributions, stride, count, n, terms);
    return kernels.FoldInOrder(op, call.type, out, contributions, stride, count, terms);
  }

  // Brings this rank, as owner, its elements of every rank's `send` (laid out as `owners` says), in rank order:
  // n blocks of Own(rank) elements in the returned scratch.
  absl::StatusOr<char*> ToOwners(const void* send, const Owners& owners) const {
    const size_t own = owners.Own(rank);
    std::vector<size_t> mine(n, own), at_mine(n);
    for (int j = 0; j < n; ++j) at_mine[j] = j * own;
    KCOLL_ASSIGN_OR_RETURN(void* blocks, kernels.Scratch(kGatheredSlot, n * own * elem));
    KCOLL_RETURN_IF_ERROR(move(CollectiveCall::AllToAllV(send, owners.counts.data(), owners.starts.data(), blocks,
                                                         mine.data(), at_mine.data(), call.type, phase, call.memory)));
    return static_cast<char*>(blocks);
  }

  // float and double under deterministic: the fold is a chain of steps in the type itself, which the linear
  // ReduceScatterV runs as the copies arrive (reduce_scatterv/linear.cc): no array of n blocks, no separate pass.
  bool FoldsOnArrival() const { return !exact && (call.type == DataType::kFloat32 || call.type == DataType::kFloat64); }

  // The phases' options with a rank-ordered schedule named: one that combines in the order defined here.
  CallOptions Named(Algorithm rank_ordered) const {
    CallOptions named = phase;
    named.algorithm = rank_ordered;
    return named;
  }

  // The whole AllReduce as one rank-ordered schedule (all_reduce/linear.cc, all_reduce/ordered_halving_doubling.cc).
  absl::Status AllReduceNamed(Algorithm rank_ordered) const {
    return move(
        CollectiveCall::AllReduce(call.send, call.recv, call.count, call.type, op, Named(rank_ordered), call.memory));
  }

  // This rank's elements (as owner) of every rank's `send`, folded in rank order into `out`.
  absl::Status FoldOwnBlock(const void* send, const Owners& owners, void* out) const {
    if (FoldsOnArrival()) {
      return move(CollectiveCall::ReduceScatterV(send, out, owners.counts.data(), call.type, op,
                                                 Named(Algorithm::kLinear), call.memory));
    }
    KCOLL_ASSIGN_OR_RETURN(char* blocks, ToOwners(send, owners));
    const size_t own = owners.Own(rank);
    return own == 0 ? absl::OkStatus() : Fold(out, blocks, own, own, n);
  }

  // Every rank's `count` elements of `send`, rank after rank, on every rank.
  absl::StatusOr<char*> Gathered(const void* send, size_t count) const {
    KCOLL_ASSIGN_OR_RETURN(void* gathered, kernels.Scratch(kGatheredSlot, n * count * elem));
    KCOLL_RETURN_IF_ERROR(move(CollectiveCall::AllGather(send, gathered, count, call.type, phase, call.memory)));
    return static_cast<char*>(gathered);
  }
};

absl::Status AllReduceInRankOrder(const RankOrder& ro) {
  const CollectiveCall& call = ro.call;
  const size_t bytes = call.count * ro.elem;
  if (ro.FoldsOnArrival() && ro.one_node_shm && IsPowerOfTwo(ro.n) && ro.n <= Communicator::kRankOrderHalvingMaxRanks &&
      bytes > Communicator::kRankOrderHalvingAboveBytes && bytes <= Communicator::kRankOrderHalvingMaxBytes) {
    // Halving-doubling's steps with each element's terms kept in rank order.
    return ro.AllReduceNamed(Algorithm::kOrderedHalvingDoubling);
  }
  if (bytes <= kGatherMaxBytes) {
    KCOLL_ASSIGN_OR_RETURN(char* gathered, ro.Gathered(call.send, call.count));
    return ro.Fold(call.recv, gathered, call.count, call.count, ro.n);
  }
  if (ro.FoldsOnArrival() && ro.one_node_shm && bytes / ro.n >= Communicator::kRankOrderFusedMinBlockBytes) {
    // The linear AllReduce is this schedule with the all-gather fused into the fold.
    return ro.AllReduceNamed(Algorithm::kLinear);
  }
  const Owners owners = EvenOwners(call.count, ro.n);
  const size_t own = owners.Own(ro.rank);
  // The owner folds straight into its place in the result (in place: its own block of send, the ReduceScatterV's in
  // place), and the all-gather runs in place: two copies of the block fewer.
  void* folded = static_cast<char*>(call.recv) + owners.starts[ro.rank] * ro.elem;
  KCOLL_RETURN_IF_ERROR(ro.FoldOwnBlock(call.send, owners, folded));
  return ro.move(CollectiveCall::AllGatherV(folded, own, call.recv, owners.counts.data(), owners.starts.data(),
                                            call.type, ro.phase, call.memory));
}

absl::Status ReduceScatterInRankOrder(const RankOrder& ro) {
  const CollectiveCall& call = ro.call;
  std::vector<size_t> equal;
  const size_t* counts = call.recv_counts;
  if (call.collective == Collective::kReduceScatter) {
    equal.assign(ro.n, call.count);
    counts = equal.data();
  }
  // Apart or in place (recv the owner's block of send: the only overlap the call's checks let through), both folds
  // read every copy of a block before they write it.
  return ro.FoldOwnBlock(call.send, OwnersOf(counts, ro.n), call.recv);
}

absl::Status ReduceInRankOrder(const RankOrder& ro) {
  const CollectiveCall& call = ro.call;
  const bool root = ro.rank == call.root;
  if (call.count * ro.elem <= kGatherMaxBytes) {
    KCOLL_ASSIGN_OR_RETURN(void* gathered, ro.kernels.Scratch(kGatheredSlot, ro.n * call.count * ro.elem));
    KCOLL_RETURN_IF_ERROR(
        ro.move(CollectiveCall::Gather(call.send, gathered, call.count, call.type, call.root, ro.phase, call.memory)));
    return root ? ro.Fold(call.recv, gathered, call.count, call.count, ro.n) : absl::OkStatus();
  }
  const Owners owners = EvenOwners(call.count, ro.n);
  const size_t own = owners.Own(ro.rank);
  KCOLL_ASSIGN_OR_RETURN(void* folded, ro.kernels.Scratch(kFoldedSlot, own * ro.elem));
  KCOLL_RETURN_IF_ERROR(ro.FoldOwnBlock(call.send, owners, folded));
  // Non-root ranks' recv is not theirs to write (it may be null): they name the folded block, which GatherV leaves.
  return ro.move(CollectiveCall::GatherV(folded, own, root ? call.recv : folded, owners.counts.data(),
                                         owners.starts.data(), call.type, call.root, ro.phase, call.memory));
}

absl::Status ScanInRankOrder(const RankOrder& ro) {
  const CollectiveCall& call = ro.call;
  const bool exclusive = call.collective == Collective::kExScan;
  const int terms = exclusive ? ro.rank : ro.rank + 1;  // this rank's result folds ranks 0..terms-1
  if (call.count * ro.elem <= kGatherMaxBytes) {
    KCOLL_ASSIGN_OR_RETURN(char* gathered, ro.Gathered(call.send, call.count));
    return terms == 0 ? absl::OkStatus() : ro.Fold(call.recv, gathered, call.count, call.count, terms);
  }
  // The owner of each block computes all n prefixes of it: prefix k (k = 0..n-1) holds ranks 0..k, built left to
  // right as the fold builds it; rank r then receives prefix r (ExScan: prefix r-1) of every block.
  const Owners owners = EvenOwners(call.count, ro.n);
  const size_t own = owners.Own(ro.rank);
  KCOLL_ASSIGN_OR_RETURN(char* blocks, ro.ToOwners(call.send, owners));
  KCOLL_ASSIGN_OR_RETURN(void* prefixes_ptr, ro.kernels.Scratch(kFoldedSlot, ro.n * own * ro.elem));
  char* prefixes = static_cast<char*>(prefixes_ptr);
  const size_t block_bytes = own * ro.elem;
  // Prefix k extends prefix k-1 by one term, except where a fold is not a chain of steps: 16-bit floats round once
  // per fold, and an exact sum truncates every term in the window of all n (even a prefix of one term), so their
  // prefixes are each folded afresh from the terms.
  const bool afresh = ro.exact || call.type == DataType::kFloat16 || call.type == DataType::kBfloat16;
  if (own > 0) {
    if (afresh) {
      for (int k = 0; k < ro.n; ++k)
        KCOLL_RETURN_IF_ERROR(ro.Fold(prefixes + k * block_bytes, blocks, own, own, k + 1));
    } else {
      KCOLL_RETURN_IF_ERROR(ro.kernels.Copy(prefixes, blocks, block_bytes, block_bytes));
      for (int k = 1; k < ro.n; ++k) {
        KCOLL_RETURN_IF_ERROR(ro.kernels.Reduce(ro.op, call.type, prefixes + k * block_bytes,
                                                prefixes + (k - 1) * block_bytes, blocks + k * block_bytes, own));
      }
    }
  }
  // To rank k goes the prefix of ranks 0..k (Scan) or 0..k-1 (ExScan: rank 0 gets nothing).
  std::vector<size_t> send_counts(ro.n), send_displs(ro.n), recv_counts(ro.n), recv_displs(ro.n);
  for (int k = 0; k < ro.n; ++k) {
    const bool gets = !(exclusive && k == 0);
    send_counts[k] = gets ? own : 0;
    send_displs[k] = gets ? static_cast<size_t>(exclusive ? k - 1 : k) * own : 0;
    recv_counts[k] = terms == 0 ? 0 : owners.counts[k];
    recv_displs[k] = owners.starts[k];
  }
  // (ExScan's rank 0 receives nothing, and its recv need not be a buffer: it names the scratch it does not send.)
  return ro.move(CollectiveCall::AllToAllV(prefixes, send_counts.data(), send_displs.data(),
                                           terms == 0 ? static_cast<void*>(blocks) : call.recv, recv_counts.data(),
                                           recv_displs.data(), call.type, ro.phase, call.memory));
}

absl::Status CombineInRankOrder(const RankOrder& ro) {
  switch (ro.call.collective) {
    case Collective::kAllReduce:
      return AllReduceInRankOrder(ro);
    case Collective::kReduceScatter:
    case Collective::kReduceScatterV:
      return ReduceScatterInRankOrder(ro);
    case Collective::kReduce:
      return ReduceInRankOrder(ro);
    case Collective::kScan:
    case Collective::kExScan:
      return ScanInRankOrder(ro);
    default:
      return absl::InternalError(absl::StrCat(CollectiveName(ro.call.collective), " has no rank-ordered schedule"));
  }
}

}  // namespace

Numerics Communicator::NumericsOf(const CollectiveCall& call) const {
  return call.options.numerics.value_or(state_->numerics);
}

bool Communicator::NeedsRankOrder(const CollectiveCall& call) const {
  return HasRankOrderedForm(call.collective) && NumericsOf(call) != Numerics::kFast && IsValid(call.type) &&
         IsFloating(call.type) && IsValid(call.op);
}

bool Communicator::SumsExactly(const CollectiveCall& call) const {
  return NeedsRankOrder(call) && NumericsOf(call) == Numerics::kExact &&
         (call.op == ReduceOp::kSum || call.op == ReduceOp::kAvg);
}

bool Communicator::SumsExactlyInPairs(const CollectiveArgs& args) const {
  const Collective c = args.collective;
  return args.exact_sum && size() == 2 &&
         (c == Collective::kAllReduce || c == Collective::kReduce || c == Collective::kReduceScatter ||
          c == Collective::kReduceScatterV);
}

absl::Status Communicator::RunInRankOrder(const CollectiveCall& call) {
  const CollectiveArgs args = ArgsOf(call);
  const absl::string_view name = CollectiveName(call.collective);
  KCOLL_RETURN_IF_ERROR(CheckUsable(name));
  KCOLL_RETURN_IF_ERROR(Validate(args, call.memory));
  // An algorithm asked for by name (or by KCOLL_ALGO) combines in its own order, except the inline one.
  KCOLL_ASSIGN_OR_RETURN(const Algorithm named, state_->NamedAlgorithm(call.collective, call.options.algorithm));
  if (named == Algorithm::kInline) return RunStages(call, /*synchronize=*/true);
  if (named != Algorithm::kAuto) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": algorithm ", AlgorithmName(named), " combines the ranks' terms in an order of its own and cannot ",
        "honour numerics=", NumericsName(NumericsOf(call)), " (use auto or inline, or numerics=fast)"));
  }
  const bool exact = SumsExactly(call);
  if (exact && size() > ExactMaxRanks(call.type)) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": numerics=exact sums at most ", ExactMaxRanks(call.type),
                                                   " ranks' terms of ", DataTypeName(call.type),
                                                   " per element; the communicator has ", size(), " ranks"));
  }
  // Nothing to combine (every count zero, or one rank): the general path does what remains, copies included. (An
  // exact sum of one term is the term, except that a NaN comes back as the canonical NaN: it runs the schedule.)
  const bool empty =
      call.collective == Collective::kReduceScatterV ? TotalCount(call.recv_counts, size()) == 0 : call.count == 0;
  if (empty || (size() == 1 && !exact)) return RunStages(call, /*synchronize=*/true);
  if (SumsExactlyInPairs(args)) return RunStages(call, /*synchronize=*/true);
  // Two ranks: every schedule combines each element once, x0 op x1, and IEEE sums and products are commutative bit
  // for bit, so the fastest schedule already has the rank order's bits. (Min and max are not, when one is a NaN; an
  // exact sum is the correctly rounded sum of the terms' truncations, which may differ from x0 + x1.)
  if (!exact && size() == 2 && (call.op == ReduceOp::kSum || call.op == ReduceOp::kAvg || call.op == ReduceOp::kProd)) {
    return RunStages(call, /*synchronize=*/true);
  }

  CallOptions phase;
  phase.numerics = Numerics::kFast;  // the phases move bytes exactly; they take auto's algorithms
  const bool one_node_shm =
      state_->topology.nnodes == 1 && state_->transport_kind == TransportKind::kShm && call.memory == MemoryKind::kHost;
  const RankOrder ro{call,
                     [this](const CollectiveCall& c) { return Dispatch(c); },
                     *state_->kernels,
                     rank(),
                     size(),
                     call.op == ReduceOp::kAvg ? ReduceOp::kSum : call.op,
                     DataTypeSize(call.type),
                     phase,
                     exact,
                     one_node_shm};
  KCOLL_RETURN_IF_ERROR(CombineInRankOrder(ro));
  const size_t result = RecvCount(args, rank(), size());
  if (call.op != ReduceOp::kAvg || result == 0) return absl::OkStatus();
  return state_->kernels->Divide(call.type, call.recv, result, ReducedRanks(call.collective, rank(), size()));
}

}  // namespace kcoll
