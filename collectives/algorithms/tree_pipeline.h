// AllReduce over a tree of ranks, pipelined in chunks: every chunk is reduced up the tree to its root and broadcast
// back down. The binomial tree, NCCL's double binary tree and the hierarchical ring-tree are all this schedule on
// different tree shapes. See tree_pipeline.cc.
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_TREE_PIPELINE_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_TREE_PIPELINE_H_

#include <cstddef>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/group.h"

namespace kcoll {

// One rank's place in a tree, as communicator ranks.
struct TreeLinks {
  int parent = -1;  // -1: this rank is the root
  // Smallest subtree first: partial results are reduced in this order (the first one is combined with `in`), which
  // is the order they are expected to arrive in.
  std::vector<int> children;
};

// Position `index` of a binomial tree over `n` positions rooted at position 0: the parent clears the lowest set
// bit; the children are index + 2^k for every 2^k below the lowest set bit (all 2^k < n for the root), smallest
// first, so the child whose subtree finishes first is reduced first. Depth ceil(log2 n).
struct TreePositions {
  int parent = -1;
  std::vector<int> children;
};
TreePositions BinomialTreePositions(int n, int index);
// The binomial tree on `group`, rooted at group position 0, in communicator ranks.
TreeLinks BinomialTreeLinks(const Group& group);
// ceil(log2(n)) for n >= 1.
int CeilLog2(int n);

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
  // Chunk k up the tree: children's partial results are reduced with this rank's contribution and sent to the
  // parent. Call for k = 0, 1, ... in order.
  absl::Status Up(size_t k);
  // Chunk k down the tree: the result is received from the parent (the root has it after Up(k)) and sent to the
  // children. Call in order, each after Up(k).
  absl::Status Down(size_t k);

 private:
  Block ChunkAt(size_t k) const;
  absl::Status PostUpReceives(size_t k);

  Resources& res_;
  TreeLinks links_;
  Spec spec_;
  size_t elem_ = 1;
  size_t chunk_elems_ = 0;
  size_t nchunks_ = 0;
  const char* in_ = nullptr;
  char* out_ = nullptr;
  std::vector<void*> scratch_;                              // [parity * nchildren + child]
  std::vector<Transport::Request> up_recv_;                 // same layout as scratch_
  std::vector<std::optional<Transport::Request>> up_send_;  // per chunk
};

// Runs the pipelines' chunks in lock step: at tick t every pipeline does Up(t), then Down(t - lag). A lag of about
// twice the tree depth keeps a rank from waiting for a chunk's round trip before it can start the next one; any lag
// is deadlock-free because a rank only waits for messages its neighbours send at the same or an earlier tick.
// Waits for every transfer before returning.
absl::Status RunTreePipelines(Resources& res, const std::vector<TreePipeline*>& pipelines, size_t lag);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_TREE_PIPELINE_H_
