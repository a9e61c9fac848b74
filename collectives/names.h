// Names shared by every layer: the collectives kcoll implements and the algorithms that can run them.
// Kept in models/ (which depends on nothing else in the repo) so that the cost model, the communicator and
// the benchmarks all speak of the same enumerators and spell them the same way.
#ifndef KCOLL_MODELS_NAMES_H_
#define KCOLL_MODELS_NAMES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kcoll {

enum class Collective {
  kAllReduce,
  kReduceScatter,
  kAllGather,
  kBroadcast,
  kReduce,
  kAllToAll,
  kGather,
  kScatter,
  kSendRecv,
  kBarrier,
};

enum class Algorithm {
  kAuto,                  // chosen per call by the cost model (or a size threshold)
  kRing,                  // ReduceScatter + AllGather around one ring
  kRingPipelined,         // several channels, each a ring cut into chunks that overlap transfer and reduce
  kBidirectionalRing,     // half the data clockwise, half counter-clockwise
  kTree,                  // binomial tree: reduce to the root, then broadcast
  kDoubleBinaryTree,      // two complementary binary trees, each carrying half of the data
  kHalvingDoubling,       // Rabenseifner: recursive-halving ReduceScatter + recursive-doubling AllGather
  kRecursiveDoubling,     // log2(n) full-size exchanges
  kHierarchical,          // 2D: intra-node ReduceScatter, inter-node AllReduce, intra-node AllGather
  kHierarchicalRingTree,  // ring inside a node, tree across nodes
  kChain,                 // pipelined chain (Broadcast, Reduce)
  kPairwise,              // pairwise exchange (AllToAll, SendRecv)
  kLinear,                // root talks to every rank in turn (Gather, Scatter, Barrier fallback)
  kDirect,                // zero-copy on registered buffers: ranks of one node read each other's buffers in place
};

// Every collective / algorithm, in declaration order.
const std::vector<Collective>& AllCollectives();
const std::vector<Algorithm>& AllAlgorithms();

// Lower-case snake_case names: "all_reduce", "reduce_scatter", ...; "ring", "ring_pipelined", "tree", ...
absl::string_view CollectiveName(Collective c);
absl::string_view AlgorithmName(Algorithm a);

// Parse a name (as printed above, case-insensitive). InvalidArgument names the text and lists the valid names.
absl::StatusOr<Collective> ParseCollective(absl::string_view text);
absl::StatusOr<Algorithm> ParseAlgorithm(absl::string_view text);

}  // namespace kcoll

#endif  // KCOLL_MODELS_NAMES_H_
