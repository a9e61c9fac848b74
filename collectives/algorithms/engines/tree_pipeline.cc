// Tree AllReduce, pipelined over chunks.
//
// The buffer is cut into chunks of chunk_elems elements. Going up, chunk k's partial result from each child is
// received into a per-child scratch buffer and reduced, child by child, with this rank's contribution into `out`
// (the first reduction reads `in`, so nothing is copied; over shared memory the first child's is reduced straight
// out of the transport's slots, receive_reduce.h); the result goes to the parent, and a leaf sends its `in` chunk
// directly. Going down, the final chunk is received from the parent straight into `out` and sent on to every
// child. The root's `out` chunk is final once it has reduced its children's.
//
// The receives of chunk k+1 are posted before chunk k is waited for, into the other half of a double-buffered set
// of scratch buffers (two per child), so the next chunk travels while this one is reduced; not on a stream-ordered
// transport (NCCL), where a receive posted ahead would wait, on the stream, for a child that is itself waiting for
// this rank's later broadcast (see Transport::StreamOrdered), so there each chunk's receives are posted with it. Before
// the broadcast receives chunk k into `out`, the reduction's send of chunk k is waited for when it read `out` (an
// interior rank, or a leaf in place). Each direction is split into a start, which only posts (a leaf's send, the root's
// sends, a receive), and a finish, which waits: RunTreePipelines starts a step on every pipeline before finishing any.
//
// With several chunks in flight the tree levels work at the same time on different chunks: after the pipeline
// fills, a chunk completes every chunk-time instead of every 2 * depth chunk-times.
#include "collectives/algorithms/engines/tree_pipeline.h"

#include <algorithm>
#include <utility>

#include "base/status_macros.h"
#include "collectives/algorithms/engines/binomial_tree.h"
#include "collectives/algorithms/engines/chunking.h"

namespace kcoll {

TreeLinks LinksOf(const Tree& tree, int rank) {
  TreeLinks links;
  links.parent = tree.Parent(rank);
  links.children = tree.Children(rank);
  return links;
}

TreeLinks BinomialLinksOnGroup(const Group& group) {
  const BinomialNode node = BinomialNodeOf(group.index, group.size());
  TreeLinks links;
  links.parent = node.parent < 0 ? -1 : group.ranks[node.parent];
  // binomial_tree.h lists the largest subtree first (a broadcast's order); a reduction wants the smallest first.
  for (auto it = node.children.rbegin(); it != node.children.rend(); ++it) links.children.push_back(group.ranks[*it]);
  return links;
}

int BinomialDepth(int n) {
  int depth = 0;
  while ((1 << depth) < n) ++depth;
  return depth;
}

TreePipeline::TreePipeline(Resources& res, TreeLinks links, const Spec& spec)
    : res_(res), links_(std::move(links)), spec_(spec) {
  elem_ = DataTypeSize(spec_.type);
  post_ahead_ = !res_.transport.StreamOrdered();
  in_ = static_cast<const char*>(spec_.in);
  out_ = static_cast<char*>(spec_.out);
  chunk_elems_ = spec_.chunk_elems == 0 ? spec_.count : std::min(spec_.chunk_elems, spec_.count);
  nchunks_ = spec_.count == 0 ? 0 : DivCeil(spec_.count, chunk_elems_);
}

Block TreePipeline::ChunkAt(size_t k) const {
  const size_t offset = k * chunk_elems_;
  return Block{offset, std::min(chunk_elems_, spec_.count - offset)};
}

absl::Status TreePipeline::Start() {
  if (links_.parent < 0 && links_.children.empty()) {  // a one-rank tree
    nchunks_ = 0;
    return res_.kernels.Copy(out_, in_, spec_.count * elem_);
  }
  if (nchunks_ == 0) return absl::OkStatus();
  const size_t nc = links_.children.size();
  scratch_.resize(2 * nc);
  up_recv_.resize(2 * nc);
  receive_reduce_ = std::make_unique<ReceiveReduce>(res_, spec_.op, spec_.type);
  for (size_t i = 0; i < 2 * nc; ++i) {
    if (FusedChild(i % nc)) continue;
    KCOLL_ASSIGN_OR_RETURN(scratch_[i],
                           res_.kernels.Scratch(spec_.scratch_slot + static_cast<int>(i), chunk_elems_ * elem_));
  }
  up_send_.assign(nchunks_, std::nullopt);
  return post_ahead_ ? PostUpReceives(0) : absl::OkStatus();
}

absl::Status TreePipeline::PostUpReceives(size_t k) {
  const size_t nc = links_.children.size();
  const Block c = ChunkAt(k);
  for (size_t j = 0; j < nc; ++j) {
    const size_t i = (k % 2) * nc + j;
    if (FusedChild(j)) {
      KCOLL_ASSIGN_OR_RETURN(up_recv_[i], receive_reduce_->Post(links_.children[j], out_ + c.offset * elem_,
                                                                in_ + c.offset * elem_, nullptr, c.count, spec_.tag));
    } else {
      KCOLL_ASSIGN_OR_RETURN(up_recv_[i],
                             res_.transport.Recv(links_.children[j], scratch_[i], c.count * elem_, spec_.tag));
    }
  }
  return absl::OkStatus();
}

bool TreePipeline::FusedChild(size_t j) const {
  // Only the first child's reduction reads `in` alone; the next ones add to its result, so they must wait for it.
  return j == 0 && receive_reduce_->Fused(links_.children[0]);
}

absl::Status TreePipeline::StartUp(size_t k) {
  if (!post_ahead_) {
    KCOLL_RETURN_IF_ERROR(PostUpReceives(k));
  } else if (k + 1 < nchunks_) {
    KCOLL_RETURN_IF_ERROR(PostUpReceives(k + 1));
  }
  if (links_.children.empty() && links_.parent >= 0) {
    const Block c = ChunkAt(k);
    KCOLL_ASSIGN_OR_RETURN(up_send_[k],
                           res_.transport.Send(links_.parent, in_ + c.offset * elem_, c.count * elem_, spec_.tag));
  }
  return absl::OkStatus();
}

absl::Status TreePipeline::FinishUp(size_t k) {
  const size_t nc = links_.children.size();
  if (nc == 0) return absl::OkStatus();  // a leaf sent its chunk in StartUp
  const Block c = ChunkAt(k);
  const char* mine = in_ + c.offset * elem_;
  char* result = out_ + c.offset * elem_;
  for (size_t j = 0; j < nc; ++j) {
    const size_t i = (k % 2) * nc + j;
    KCOLL_RETURN_IF_ERROR(res_.transport.Wait(up_recv_[i]));
    if (FusedChild(j)) continue;  // reduced as it arrived
    KCOLL_RETURN_IF_ERROR(
        res_.kernels.Reduce(spec_.op, spec_.type, result, j == 0 ? mine : result, scratch_[i], c.count));
  }
  if (links_.parent >= 0) {
    KCOLL_ASSIGN_OR_RETURN(up_send_[k], res_.transport.Send(links_.parent, result, c.count * elem_, spec_.tag));
  }
  return absl::OkStatus();
}

absl::Status TreePipeline::SendDown(size_t k) {
  const Block c = ChunkAt(k);
  // Children are listed smallest subtree first (see TreeLinks): start the deepest one first.
  for (auto it = links_.children.rbegin(); it != links_.children.rend(); ++it) {
    KCOLL_RETURN_IF_ERROR(res_.transport.Send(*it, out_ + c.offset * elem_, c.count * elem_, spec_.tag).status());
  }
  return absl::OkStatus();
}

absl::Status TreePipeline::StartDown(size_t k) {
  if (links_.parent < 0) return SendDown(k);
  // The broadcast overwrites the chunk the reduction sent from: `out` on an interior rank, `in` == `out` in place.
  // (A stream-ordered transport runs the receive after the send anyway.)
  const bool sent_from_out = !links_.children.empty() || in_ == out_;
  if (sent_from_out && up_send_[k].has_value() && post_ahead_) {
    KCOLL_RETURN_IF_ERROR(res_.transport.Wait(*up_send_[k]));
  }
  const Block c = ChunkAt(k);
  KCOLL_ASSIGN_OR_RETURN(down_recv_,
                         res_.transport.Recv(links_.parent, out_ + c.offset * elem_, c.count * elem_, spec_.tag));
  return absl::OkStatus();
}

absl::Status TreePipeline::FinishDown(size_t k) {
  if (links_.parent < 0) return absl::OkStatus();  // the root sent in StartDown
  KCOLL_RETURN_IF_ERROR(res_.transport.Wait(*down_recv_));
  down_recv_.reset();
  return SendDown(k);
}

absl::Status RunTreePipelines(Resources& res, const std::vector<TreePipeline*>& pipelines, size_t lag) {
  size_t ticks = 0;
  for (TreePipeline* p : pipelines) {
    KCOLL_RETURN_IF_ERROR(p->Start());
    ticks = std::max(ticks, p->chunks());
  }
  if (ticks > 0) ticks += lag;
  // On a host transport every pipeline starts a step before any finishes it: the finishes wait for single requests,
  // and the two halves of a double binary tree travel at once. On a stream-ordered transport a wait closes the whole
  // batch posted so far, so each pipeline finishes its step before the next starts: a batch holding one tree's
  // receive from the parent and the other tree's would wait for a parent that is itself waiting for this rank.
  const bool split = !res.transport.StreamOrdered();
  // Calls `member` on every pipeline that has chunk k.
  auto each = [&](size_t k, absl::Status (TreePipeline::*member)(size_t)) -> absl::Status {
    for (TreePipeline* p : pipelines) {
      if (k < p->chunks()) KCOLL_RETURN_IF_ERROR((p->*member)(k));
    }
    return absl::OkStatus();
  };
  // Stream-ordered: each pipeline finishes a step before the next one starts it.
  auto step = [&](size_t k, absl::Status (TreePipeline::*start)(size_t),
                  absl::Status (TreePipeline::*finish)(size_t)) -> absl::Status {
    for (TreePipeline* p : pipelines) {
      if (k >= p->chunks()) continue;
      KCOLL_RETURN_IF_ERROR((p->*start)(k));
      KCOLL_RETURN_IF_ERROR((p->*finish)(k));
    }
    return absl::OkStatus();
  };
  for (size_t t = 0; t < ticks; ++t) {
    if (!split) {
      KCOLL_RETURN_IF_ERROR(step(t, &TreePipeline::StartUp, &TreePipeline::FinishUp));
      if (t >= lag) KCOLL_RETURN_IF_ERROR(step(t - lag, &TreePipeline::StartDown, &TreePipeline::FinishDown));
      continue;
    }
    // Both directions are posted before either is waited for: the root's broadcast of chunk t - lag (final since
    // tick t - lag) travels while it receives and reduces chunk t, and a leaf's chunk t travels while it receives
    // chunk t - lag. Waiting for the reduction first would make the leaf wait for the broadcast before it posts
    // chunk t + 1: one transfer up, one reduction and one transfer down in turn per chunk, instead of the slower of
    // the two directions.
    KCOLL_RETURN_IF_ERROR(each(t, &TreePipeline::StartUp));
    if (t >= lag) KCOLL_RETURN_IF_ERROR(each(t - lag, &TreePipeline::StartDown));
    KCOLL_RETURN_IF_ERROR(each(t, &TreePipeline::FinishUp));
    if (t >= lag) KCOLL_RETURN_IF_ERROR(each(t - lag, &TreePipeline::FinishDown));
  }
  return res.transport.WaitAll();
}

}  // namespace kcoll
