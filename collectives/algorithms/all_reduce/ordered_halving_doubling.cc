// Ordered halving-doubling AllReduce (kOrderedHalvingDoubling), for p = 2^k ranks: halving-doubling's steps and
// partners, with every element combined in rank order, ((x0 op x1) op x2) ... op x(p-1), the order
// numerics=deterministic defines.
//
// Halving-doubling adds partial sums of any two groups of ranks; a fold in rank order can only extend a prefix,
// the fold of ranks 0..d-1. So at the step of distance d (d = 1, 2, ..., p/2) rank v, paired with v XOR d on the
// window of blocks the two share, holds for its window either the prefix of ranks 0..d-1 (its group of d ranks
// holds rank 0) or the raw terms of its group's d ranks, in rank order. The window halves as in halving-doubling
// (the lower half goes to the rank whose bit d is clear) and:
//
// - a pair whose group of 2d ranks holds rank 0: the prefix holder sends the prefix of the half it gives and
//   receives the partner's d raw terms of the half it keeps; the other sends its d raw terms of the half it gives
//   and receives the prefix of the half it keeps. Each extends the prefix by the d terms, in rank order: both now
//   hold the prefix of ranks 0..2d-1 on their half;
// - any other pair trades raw terms: each keeps its d terms and the partner's of the half it keeps, 2d in rank order.
//
// After log2(p) steps every rank holds one block folded over all p ranks, and recursive doubling gathers the blocks
// as in halving-doubling. The step pairs and their number are halving-doubling's; a rank of a group without rank 0
// sends d terms of half its window at step d, half the buffer a step, so the busiest ranks send log2(p)/2 of the
// buffer in the reduce-scatter where halving-doubling sends (p-1)/p: on 4 ranks the buffer against three quarters of
// it. It serves the mid sizes where the number of steps, not the bytes, sets the time. Each step rounds in the type,
// as linear's folds do (numerics=deterministic takes neither for 16-bit floats, which it accumulates in float). Other
// rank counts run the linear AllReduce.
//
// Each fold's last step writes the result, so a rank's own term (in place, where the result will be) is read before
// it is written over, whatever its place in the fold.
#include <vector>

#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/all_reduce/linear.h"
#include "collectives/algorithms/engines/doubling_gather.h"
#include "collectives/algorithms/engines/power_of_two_fold.h"
#include "collectives/algorithms/engines/receive_reduce.h"

namespace kcoll {
namespace {

constexpr int kTag = 0;

// The scratch every step's receives take: its received terms and the fold's running value, each the kept half.
size_t ScratchElements(size_t count, int p, int v) {
  size_t total = 0;
  int lo = 0, hi = p;
  for (int d = 1; d < p; d *= 2) {
    const int mid = lo + (hi - lo) / 2;
    const bool lower = (v & d) == 0;
    const Block keep = lower ? BlocksRange(count, p, lo, mid) : BlocksRange(count, p, mid, hi);
    total += keep.count * static_cast<size_t>(d + 1);
    if (lower) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return total;
}

}  // namespace

absl::Status OrderedHalvingDoublingAllReduce(const CollectiveArgs& args, Resources& res) {
  const int p = res.topology.nranks, v = res.topology.rank;
  if (VirtualPowerOfTwo(p).p2 != p) return LinearAllReduce(args, res);
  const size_t elem = DataTypeSize(args.type);
  const char* in = static_cast<const char*>(args.send);
  char* out = static_cast<char*>(args.recv);
  if (p == 1) return in == out ? absl::OkStatus() : res.kernels.Copy(out, in, args.count * elem);
  if (args.count == 0) return absl::OkStatus();

  KCOLL_ASSIGN_OR_RETURN(void* scratch_ptr, res.kernels.Scratch(0, ScratchElements(args.count, p, v) * elem));
  char* free_scratch = static_cast<char*>(scratch_ptr);
  auto take = [&](size_t elements) {
    char* at = free_scratch;
    free_scratch += elements * elem;
    return at;
  };

  // What this rank holds for its window [lo, hi) of blocks: terms[t] points at the window's first element of the
  // t-th term in rank order; at the step of distance d, one term that is the prefix of ranks 0..d-1 when v < d.
  std::vector<const char*> terms{in};
  ReceiveReduce receive_reduce(res, args.op, args.type);
  int lo = 0, hi = p;
  for (int d = 1; d < p; d *= 2) {
    const int peer = v ^ d;
    const bool lower = (v & d) == 0;
    const int mid = lo + (hi - lo) / 2;
    const Block window = BlocksRange(args.count, p, lo, hi);
    const Block keep = lower ? BlocksRange(args.count, p, lo, mid) : BlocksRange(args.count, p, mid, hi);
    const Block give = lower ? BlocksRange(args.count, p, mid, hi) : BlocksRange(args.count, p, lo, mid);
    auto at = [&](const char* term, const Block& part) { return term + (part.offset - window.offset) * elem; };
    const size_t keep_bytes = keep.count * elem;
    char* result = out + keep.offset * elem;
    // The sends (after the receives are posted): the prefix, or every term in rank order, of the half given.
    auto send_given = [&]() -> absl::Status {
      for (const char* term : terms) {
        KCOLL_RETURN_IF_ERROR(res.transport.Send(peer, at(term, give), give.count * elem, kTag).status());
      }
      return res.transport.WaitAll();
    };
    const bool with_rank0 = v < 2 * d;
    if (v < d) {
      // result = prefix op y0 op ... op y(d-1): the partner's terms, the first reduced as it arrives.
      std::vector<char*> received(static_cast<size_t>(d));
      for (char*& r : received) r = take(keep.count);
      const char* own = at(terms[0], keep);
      KCOLL_RETURN_IF_ERROR(receive_reduce.Post(peer, result, own, received[0], keep.count, kTag).status());
      for (int t = 1; t < d; ++t) {
        KCOLL_RETURN_IF_ERROR(res.transport.Recv(peer, received[t], keep_bytes, kTag).status());
      }
      KCOLL_RETURN_IF_ERROR(send_given());
      KCOLL_RETURN_IF_ERROR(receive_reduce.Complete(peer, result, own, received[0], keep.count));
      for (int t = 1; t < d; ++t) {
        KCOLL_RETURN_IF_ERROR(res.kernels.Reduce(args.op, args.type, result, result, received[t], keep.count));
      }
    } else if (with_rank0) {
      // result = incoming prefix op t0 op ... op t(d-1): this rank's terms, the running value in scratch until the
      // last step (in place, this rank's own term lies where the result goes).
      char* incoming = take(keep.count);
      char* running = d == 1 ? result : take(keep.count);
      const auto order = ReceiveReduce::Order::kIncomingFirst;
      const char* first = at(terms[0], keep);
      KCOLL_RETURN_IF_ERROR(receive_reduce.Post(peer, running, first, incoming, keep.count, kTag, order).status());
      KCOLL_RETURN_IF_ERROR(send_given());
      KCOLL_RETURN_IF_ERROR(receive_reduce.Complete(peer, running, first, incoming, keep.count, order));
      for (int t = 1; t < d; ++t) {
        char* into = t == d - 1 ? result : running;
        KCOLL_RETURN_IF_ERROR(res.kernels.Reduce(args.op, args.type, into, running, at(terms[t], keep), keep.count));
      }
    } else {
      // Raw terms both ways: the partner's d terms of the kept half join this rank's, in rank order.
      std::vector<const char*> joined;
      std::vector<const char*> partners;
      for (int t = 0; t < d; ++t) {
        char* r = take(keep.count);
        KCOLL_RETURN_IF_ERROR(res.transport.Recv(peer, r, keep_bytes, kTag).status());
        partners.push_back(r);
      }
      for (const char* term : terms) joined.push_back(at(term, keep));
      if (lower) {
        joined.insert(joined.end(), partners.begin(), partners.end());
      } else {
        joined.insert(joined.begin(), partners.begin(), partners.end());
      }
      KCOLL_RETURN_IF_ERROR(send_given());
      terms = std::move(joined);
    }
    if (with_rank0) terms.assign(1, result);
    if (lower) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return GatherByRecursiveDoubling(
      res, out, args.count, elem, p, v, lo, hi, [](int w) { return w; }, kTag);
}

}  // namespace kcoll
