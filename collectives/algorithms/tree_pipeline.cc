// Tree AllReduce, pipelined over chunks.
//
// The buffer is cut into chunks of chunk_elems elements. For chunk k, Up(k) waits for the chunk's partial result
// from each child (received into a per-child scratch buffer), reduces them one by one with this rank's
// contribution into `out` (the first reduction reads `in`, so nothing is copied), and sends the partial result to
// the parent; a leaf sends its `in` chunk directly. Down(k) receives the final chunk from the parent straight into
// `out` and sends it on to every child. The root's `out` chunk is final after its Up(k).
//
// Up(k) posts the receives of chunk k+1 before it waits for chunk k, into the other half of a double-buffered set
// of scratch buffers (two per child), so the next chunk travels while this one is reduced. Down(k) first waits for
// the Up(k) send of the same chunk when that send read `out` (an interior rank, or a leaf in place), since the
// broadcast overwrites it.
//
// With several chunks in flight the tree levels work at the same time on different chunks: after the pipeline
// fills, a chunk completes every chunk-time instead of every 2 * depth chunk-times.
#include "collectives/algorithms/tree_pipeline.h"

#include <algorithm>
#include <utility>

#include "collectives/algorithms/chunking.h"
#include "collectives/status_macros.h"

namespace kcoll {

int CeilLog2(int n) {
  int depth = 0;
  while ((1 << depth) < n) ++depth;
  return depth;
}

TreePositions BinomialTreePositions(int n, int index) {
  TreePositions t;
  const int low = index == 0 ? n : (index & -index);  // the root may have children up to the largest 2^k < n
  if (index != 0) t.parent = index - low;
  for (int step = 1; step < low && index + step < n; step <<= 1) t.children.push_back(index + step);
  return t;
}

TreeLinks BinomialTreeLinks(const Group& group) {
  const TreePositions p = BinomialTreePositions(group.size(), group.index);
  TreeLinks links;
  links.parent = p.parent < 0 ? -1 : group.ranks[p.parent];
  for (int c : p.children) links.children.push_back(group.ranks[c]);
  return links;
}

TreePipeline::TreePipeline(Resources& res, TreeLinks links, const Spec& spec)
    : res_(res), links_(std::move(links)), spec_(spec) {
  elem_ = DataTypeSize(spec_.type);
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
  for (size_t i = 0; i < 2 * nc; ++i) {
    KCOLL_ASSIGN_OR_RETURN(scratch_[i],
                           res_.kernels.Scratch(spec_.scratch_slot + static_cast<int>(i), chunk_elems_ * elem_));
  }
  up_send_.assign(nchunks_, std::nullopt);
  return PostUpReceives(0);
}

absl::Status TreePipeline::PostUpReceives(size_t k) {
  const size_t nc = links_.children.size();
  const size_t bytes = ChunkAt(k).count * elem_;
  for (size_t j = 0; j < nc; ++j) {
    const size_t i = (k % 2) * nc + j;
    KCOLL_ASSIGN_OR_RETURN(up_recv_[i], res_.transport.Recv(links_.children[j], scratch_[i], bytes, spec_.tag));
  }
  return absl::OkStatus();
}

absl::Status TreePipeline::Up(size_t k) {
  if (k + 1 < nchunks_) KCOLL_RETURN_IF_ERROR(PostUpReceives(k + 1));
  const Block c = ChunkAt(k);
  const char* mine = in_ + c.offset * elem_;
  char* result = out_ + c.offset * elem_;
  const size_t nc = links_.children.size();
  for (size_t j = 0; j < nc; ++j) {
    const size_t i = (k % 2) * nc + j;
    KCOLL_RETURN_IF_ERROR(res_.transport.Wait(up_recv_[i]));
    KCOLL_RETURN_IF_ERROR(
        res_.kernels.Reduce(spec_.op, spec_.type, result, j == 0 ? mine : result, scratch_[i], c.count));
  }
  if (links_.parent >= 0) {
    const char* partial = nc == 0 ? mine : result;
    KCOLL_ASSIGN_OR_RETURN(up_send_[k], res_.transport.Send(links_.parent, partial, c.count * elem_, spec_.tag));
  }
  return absl::OkStatus();
}

absl::Status TreePipeline::Down(size_t k) {
  const Block c = ChunkAt(k);
  char* result = out_ + c.offset * elem_;
  if (links_.parent >= 0) {
    // The broadcast overwrites the chunk the reduction sent from: `out` on an interior rank, `in` == `out` in place.
    const bool sent_from_out = !links_.children.empty() || in_ == out_;
    if (sent_from_out && up_send_[k].has_value()) KCOLL_RETURN_IF_ERROR(res_.transport.Wait(*up_send_[k]));
    KCOLL_ASSIGN_OR_RETURN(Transport::Request r,
                           res_.transport.Recv(links_.parent, result, c.count * elem_, spec_.tag));
    KCOLL_RETURN_IF_ERROR(res_.transport.Wait(r));
  }
  // Children are listed smallest subtree first (see TreeLinks): start the deepest one first.
  for (auto it = links_.children.rbegin(); it != links_.children.rend(); ++it) {
    KCOLL_RETURN_IF_ERROR(res_.transport.Send(*it, result, c.count * elem_, spec_.tag).status());
  }
  return absl::OkStatus();
}

absl::Status RunTreePipelines(Resources& res, const std::vector<TreePipeline*>& pipelines, size_t lag) {
  size_t ticks = 0;
  for (TreePipeline* p : pipelines) {
    KCOLL_RETURN_IF_ERROR(p->Start());
    ticks = std::max(ticks, p->chunks());
  }
  if (ticks > 0) ticks += lag;
  for (size_t t = 0; t < ticks; ++t) {
    for (TreePipeline* p : pipelines) {
      if (t < p->chunks()) KCOLL_RETURN_IF_ERROR(p->Up(t));
    }
    if (t < lag) continue;
    for (TreePipeline* p : pipelines) {
      if (t - lag < p->chunks()) KCOLL_RETURN_IF_ERROR(p->Down(t - lag));
    }
  }
  return res.transport.WaitAll();
}

}  // namespace kcoll
