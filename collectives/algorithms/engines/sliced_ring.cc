// The ring schedule of ring.cc, restructured for pipelining.
//
// The buffer is cut into slices of n * slice_block_elems elements (the last one shorter); each slice is cut into n
// blocks (sizes differ by at most one) and goes through a complete ring AllReduce of its own: n-1 ReduceScatter
// steps (receive a block into scratch, reduce it with this rank's contribution into `out`) and n-1 AllGather steps
// (receive a reduced block straight into `out`). Slices follow each other on the same ring, as in NCCL's loop over
// `loopSize = nranks * chunkSize`. Every received block is forwarded to the right neighbour as soon as it is
// complete, except the last one of a slice.
//
// The unit of progress is one receive. Advance() first posts the receive after the current one (crossing into the
// next slice if needed, together with that slice's first send), then waits for the current one, reduces it and
// forwards it. So while a block is being reduced the next one is already on its way, and ReduceScatter receives
// alternate between two scratch buffers (Kernels::Scratch slots s and s+1). Because a pipeline only ever blocks on
// a message its left neighbour sent at an earlier point of the same schedule, any number of pipelines with
// distinct tags can be advanced in turn by one thread without deadlock (RunInterleaved).
//
// On a stream-ordered transport (NCCL: a wait only launches the batch of transfers posted since the last one) a
// receive posted ahead would join a batch that the peer's matching send, posted after the peer's own reduction,
// can only follow: the streams would wait on each other. There Advance() posts the next receive after the forward
// send instead, so each batch is one ring step (send and receive of the same step on every rank), and the
// send-before-overwrite waits are left to stream order.
//
// Memory traffic: nothing is copied locally. Over shared memory a ReduceScatter block is reduced straight out of
// the transport's slots as it arrives (receive_reduce.h): it reads this rank's block from `in` and writes `out`
// once, with no scratch between; elsewhere it arrives in a chunk-sized scratch buffer that is still in cache when
// it is reduced. AllGather blocks land directly in `out`. A block of `out` is only overwritten by an AllGather receive
// after the ReduceScatter send that read it has completed (the per-block send requests are waited for first), which is
// also what makes in place (in == out) work.
#include "collectives/algorithms/engines/sliced_ring.h"

#include <algorithm>
#include <deque>
#include <utility>

#include "base/status_macros.h"
#include "collectives/algorithms/engines/chunking.h"
#include "collectives/algorithms/engines/partition.h"

namespace kcoll {

SlicedRing::SlicedRing(Resources& res, Group group, const Spec& spec)
    : res_(res), group_(std::move(group)), spec_(spec) {
  n_ = group_.size();
  me_ = group_.index;
  left_ = group_.Peer(-1);
  right_ = group_.Peer(+1);
  elem_ = DataTypeSize(spec_.type);
  post_ahead_ = !res_.transport.StreamOrdered();
  in_ = static_cast<const char*>(spec_.in);
  out_ = static_cast<char*>(spec_.out);
  rs_steps_ = spec_.phases == Phases::kAllGather ? 0 : n_ - 1;
  ag_steps_ = spec_.phases == Phases::kReduceScatter ? 0 : n_ - 1;
  if (spec_.count == 0) {
    slice_elems_ = 0;
    nslices_ = 0;
  } else if (spec_.slice_block_elems == 0 || spec_.slice_block_elems >= DivCeil(spec_.count, n_)) {
    slice_elems_ = spec_.count;
    nslices_ = 1;
  } else {
    slice_elems_ = spec_.slice_block_elems * static_cast<size_t>(n_);
    nslices_ = DivCeil(spec_.count, slice_elems_);
  }
}

size_t SlicedRing::SliceCount(size_t slice) const { return std::min(slice_elems_, spec_.count - SliceOffset(slice)); }

Block SlicedRing::BlockIn(size_t slice, int block) const {
  const Block b = BlockOf(SliceCount(slice), n_, block);
  return Block{SliceOffset(slice) + b.offset, b.count};
}

int SlicedRing::ReceivedBlock(const Event& e) const {
  return IsReduceScatter(e) ? Mod(me_ - e.step - 1, n_) : Mod(me_ - (e.step - rs_steps_), n_);
}

std::optional<SlicedRing::Event> SlicedRing::Next(const Event& e) const {
  if (e.step + 1 < rs_steps_ + ag_steps_) return Event{e.slice, e.step + 1};
  if (e.slice + 1 < nslices_) return Event{e.slice + 1, 0};
  return std::nullopt;
}

absl::Status SlicedRing::Start() {
  if (n_ == 1 || nslices_ == 0) {
    done_ = true;
    if (n_ == 1 && spec_.phases != Phases::kAllGather) {
      return res_.kernels.Copy(out_, in_, spec_.count * elem_);
    }
    return absl::OkStatus();
  }
  receive_reduce_ = std::make_unique<ReceiveReduce>(res_, spec_.op, spec_.type);
  if (rs_steps_ > 0 && !receive_reduce_->Fused(left_)) {
    const size_t bytes = BlockOf(SliceCount(0), n_, 0).count * elem_;
    for (int k = 0; k < 2; ++k) {
      KCOLL_ASSIGN_OR_RETURN(scratch_[k], res_.kernels.Scratch(spec_.scratch_slot + k, bytes));
    }
  }
  block_send_.assign(n_, std::nullopt);
  current_ = Event{0, 0};
  KCOLL_RETURN_IF_ERROR(PostSliceStart(0));
  return PostReceive(current_);
}

absl::Status SlicedRing::PostSliceStart(size_t slice) {
  std::vector<std::optional<Transport::Request>>& sends = slice == current_.slice ? block_send_ : next_block_send_;
  if (rs_steps_ > 0) {  // ReduceScatter step 0 sends this rank's own block, from `in`
    const Block b = BlockIn(slice, me_);
    KCOLL_ASSIGN_OR_RETURN(Transport::Request r,
                           res_.transport.Send(right_, in_ + b.offset * elem_, b.count * elem_, spec_.tag));
    if (in_ == out_) sends[me_] = r;  // only in place does the AllGather later receive into what this send reads
  } else {                            // AllGather step 0 sends the block this rank owns after a ReduceScatter
    const Block b = BlockIn(slice, OwnedBlock(me_, n_));
    KCOLL_RETURN_IF_ERROR(res_.transport.Send(right_, out_ + b.offset * elem_, b.count * elem_, spec_.tag).status());
  }
  return absl::OkStatus();
}

absl::Status SlicedRing::PostReceive(const Event& e) {
  const int block = ReceivedBlock(e);
  const Block b = BlockIn(e.slice, block);
  char* at = out_ + b.offset * elem_;
  if (IsReduceScatter(e)) {
    void* scratch = scratch_[rs_received_++ % 2];
    KCOLL_ASSIGN_OR_RETURN(Transport::Request request,
                           receive_reduce_->Post(left_, at, in_ + b.offset * elem_, scratch, b.count, spec_.tag));
    RecordReceive(e, request, scratch);
    return absl::OkStatus();
  }
  std::optional<Transport::Request>& pending = e.slice == current_.slice ? block_send_[block] : next_block_send_[block];
  if (pending.has_value()) {
    // A stream-ordered transport runs this receive after the send anyway; a wait would split the current batch.
    if (!res_.transport.StreamOrdered()) KCOLL_RETURN_IF_ERROR(res_.transport.Wait(*pending));
    pending.reset();
  }
  KCOLL_ASSIGN_OR_RETURN(Transport::Request request, res_.transport.Recv(left_, at, b.count * elem_, spec_.tag));
  RecordReceive(e, request, at);
  return absl::OkStatus();
}

void SlicedRing::RecordReceive(const Event& e, Transport::Request request, void* target) {
  if (e.slice == current_.slice && e.step == current_.step) {
    current_recv_ = request;
    current_scratch_ = target;
  } else {
    next_recv_ = request;
    next_scratch_ = target;
  }
}

absl::Status SlicedRing::PostNext(const Event& next) {
  if (next.slice != current_.slice) {
    next_block_send_.assign(n_, std::nullopt);
    KCOLL_RETURN_IF_ERROR(PostSliceStart(next.slice));
  }
  return PostReceive(next);
}

absl::Status SlicedRing::Advance() {
  const Event e = current_;
  const std::optional<Event> next = Next(e);
  if (post_ahead_ && next.has_value()) KCOLL_RETURN_IF_ERROR(PostNext(*next));
  KCOLL_RETURN_IF_ERROR(res_.transport.Wait(current_recv_));
  const int block = ReceivedBlock(e);
  const Block b = BlockIn(e.slice, block);
  char* at = out_ + b.offset * elem_;
  if (IsReduceScatter(e)) {
    KCOLL_RETURN_IF_ERROR(receive_reduce_->Complete(left_, at, in_ + b.offset * elem_, current_scratch_, b.count));
  }
  if (next.has_value() && next->slice == e.slice) {  // forward the completed block
    KCOLL_ASSIGN_OR_RETURN(block_send_[block], res_.transport.Send(right_, at, b.count * elem_, spec_.tag));
  }
  if (!post_ahead_ && next.has_value()) KCOLL_RETURN_IF_ERROR(PostNext(*next));
  if (!next.has_value()) {
    done_ = true;
    return absl::OkStatus();
  }
  if (next->slice != e.slice) block_send_.swap(next_block_send_);
  current_ = *next;
  current_recv_ = *next_recv_;
  current_scratch_ = next_scratch_;
  next_recv_.reset();
  return absl::OkStatus();
}

absl::Status RunInterleaved(Resources& res, const std::vector<SlicedRing*>& pipelines) {
  for (SlicedRing* p : pipelines) KCOLL_RETURN_IF_ERROR(p->Start());
  for (bool busy = true; busy;) {
    busy = false;
    for (SlicedRing* p : pipelines) {
      if (p->done()) continue;
      KCOLL_RETURN_IF_ERROR(p->Advance());
      busy = busy || !p->done();
    }
  }
  return res.transport.WaitAll();
}

absl::Status AllReduceSharesOnRings(const CollectiveArgs& args, Resources& res, const std::vector<Group>& rings,
                                    size_t slice_block_elems) {
  const size_t elem = DataTypeSize(args.type);
  const int nrings = static_cast<int>(rings.size());
  std::deque<SlicedRing> pipelines;
  std::vector<SlicedRing*> run;
  for (int k = 0; k < nrings; ++k) {
    const Block share = BlockOf(args.count, nrings, k);
    if (share.count == 0 && k > 0) continue;
    SlicedRing::Spec spec;
    spec.phases = SlicedRing::Phases::kAllReduce;
    spec.in = static_cast<const char*>(args.send) + share.offset * elem;
    spec.out = static_cast<char*>(args.recv) + share.offset * elem;
    spec.count = share.count;
    spec.type = args.type;
    spec.op = args.op;
    spec.tag = k;
    spec.slice_block_elems = slice_block_elems;
    spec.scratch_slot = 2 * k;
    pipelines.emplace_back(res, rings[k], spec);
    run.push_back(&pipelines.back());
  }
  return RunInterleaved(res, run);
}

}  // namespace kcoll
