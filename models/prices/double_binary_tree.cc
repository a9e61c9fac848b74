// double_binary_tree (all_reduce; schedule: collectives/algorithms/all_reduce/double_binary_tree.cc): two
// complementary binary trees (models/trees.h) each carry S/2, reduced toward the root and broadcast back. Each half
// is cut into chunks of chunk_bytes that stream through its tree, a chunk's reduction and broadcast pipelined (a chunk
// goes down as soon as the root has it). Both trees run at once and their traffic adds up on shared links. Pipeline
// stage: a chunk up and another down every edge. Through NICs or copy engines, the slower of the busiest intra-node
// link and the busiest node's NICs, overlapped with the busiest rank's reduction of its children's chunks. With
// transfers_use_cores each rank copies every chunk it receives, of both link classes, in turn, then reduces; the
// ranks' loads differ, and the stage is the busiest rank's work times the profile's rank_core_share (its rate alone on
// a core, when the profile was measured with ranks sharing cores) or the mean rank's work (all the ranks' work over
// the cores), whichever is longer. First chunk: up to the root and back down the slowest leaf-to-root path, each hop
// charged its link class's time for the chunk alone (the pipeline behind it is still empty), plus the reduction of
// every child's chunk at each rank it passes on the way up.
//
// cost all_reduce: per tree 2 (d + k - 1) (alpha + S/(2k) beta) + S gamma, both trees at once
#include "models/prices/rounds.h"
#include "models/trees.h"

namespace kcoll {
namespace models {

void PriceDoubleBinaryTree(PriceBuilder& b) {
  const DoubleBinaryTree trees = DoubleBinaryTreeParents(b.ranks());
  b.PipelinedTrees({trees.first, trees.second});
}

}  // namespace models
}  // namespace kcoll
