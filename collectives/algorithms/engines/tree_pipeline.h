// AllReduce over a tree of ranks, pipelined in chunks: every chunk is reduced up the tree to its root and broadcast
// back down. The binomial tree, NCCL's double binary tree and the hierarchical ring-tree are all this schedule on
// different tree shapes. See tree_pipeline.cc.
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_TREE_PIPELINE_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_TREE_PIPELINE_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "base/graph.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/group.h"
#include "collectives/algorithms/engines/receive_reduce.h"

namespace kcoll {

// One rank's place in a tree, as communicator ranks. The binomial tree (kTree, Broadcast, Reduce) and the double
// binary tree come from the topology (graph.h), built once per communicator; a tree over part of the communicator
// (the hierarchical ring-tree's inter-node step) from binomial_tree.h.
struct TreeLinks {
  int parent = -1;  // -1: this rank is the root
  // Smallest subtree first: partial results are reduced in this order (the first one is combined with `in`), which
  // is the order they are expected to arrive in.
  std::vector<int> children;
};

// This rank's links in one of the topology's trees (graph.h).
TreeLinks LinksOf(const Tree& tree, int rank);
// This rank's links in the binomial tree over `group` rooted at group position 0 (binomial_tree.h), children
// smallest subtree first.
TreeLinks BinomialLinksOnGroup(const Group& group);
// Levels of the binomial tree over n positions: ceil(log2 n).
int BinomialDepth(int n);

class TreePipeline {
 public:
  struct Spec {
    const void* in = nullptr;  // may equal out
    void* out = nullptr;
    size_t count = 0;
    DataType type = DataType::kFloat32;
    ReduceOp op = ReduceOp::kSum;
    int tag = 0;
    size_t chunk_elems = 0;  // 0: one chunk
    int scratch_slot = 0;    // uses 2 * children.size() consecutive Kernels::Scratch slots from here
  };

  TreePipeline(Resources& res, TreeLinks links, const Spec& spec);

  size_t chunks() const { return nchunks_; }
  // Allocates scratch and posts the receives of chunk 0's reduction. A lone rank (no parent, no children) copies.
  absl::Status Start();
  // Chunk k up the tree, in two halves so that several pipelines can post everything that does not block before any
  // of them waits: StartUp(k) posts the receives of chunk k+1 (of chunk k on a stream-ordered transport) and, on a
  // leaf, sends chunk k of `in` to the parent;
  // FinishUp(k) waits for the children's partial results, reduces them with this rank's contribution and sends the
  // result to the parent. Call for k = 0, 1, ... in order.
  absl::Status StartUp(size_t k);
  absl::Status FinishUp(size_t k);
  // Chunk k down the tree: StartDown(k) sends it to the children on the root (which has it after FinishUp(k)) and
  // posts its receive from the parent elsewhere; FinishDown(k) waits for it and sends it to the children. Call in
  // order, each after FinishUp(k).
  absl::Status StartDown(size_t k);
  absl::Status FinishDown(size_t k);

 private:
  Block ChunkAt(size_t k) const;
  absl::Status PostUpReceives(size_t k);
  bool FusedChild(size_t j) const;  // whether child j's chunks are reduced as they arrive
  absl::Status SendDown(size_t k);

  Resources& res_;
  TreeLinks links_;
  Spec spec_;
  size_t elem_ = 1;
  bool post_ahead_ = true;  // receive chunk k+1 while reducing chunk k (not on stream-ordered transports)
  size_t chunk_elems_ = 0;
  size_t nchunks_ = 0;
  const char* in_ = nullptr;
  char* out_ = nullptr;
  std::unique_ptr<ReceiveReduce> receive_reduce_;  // on the heap: the transport holds its reducer while receiving
  std::vector<void*> scratch_;                     // [parity * nchildren + child]
  std::vector<Transport::Request> up_recv_;        // same layout as scratch_
  std::vector<std::optional<Transport::Request>> up_send_;  // per chunk
  std::optional<Transport::Request> down_recv_;             // between StartDown and FinishDown
};

// Runs the pipelines' chunks in lock step: at tick t every pipeline moves chunk t up, then chunk t - lag down, each
// step started on every pipeline before any is finished (so that, e.g., the two trees of a double binary tree
// exchange their halves at the same time instead of one after the other; on a stream-ordered transport each
// pipeline finishes its step before the next one starts, see the .cc). A lag of about twice the tree depth keeps
// a rank from waiting for a chunk's round trip before it can start the next one; any lag is deadlock-free because a
// rank only waits for messages its neighbours send at the same or an earlier tick. Waits for every transfer before
// returning.
absl::Status RunTreePipelines(Resources& res, const std::vector<TreePipeline*>& pipelines, size_t lag);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_TREE_PIPELINE_H_
