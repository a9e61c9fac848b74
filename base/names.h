// The vocabulary every layer speaks: the collectives kcoll implements, the algorithms that can run them, and what
// each collective is (rooted, reducing, its size and bus-bandwidth factor as nccl-tests count them), in one table.
// A leaf target, so that the communicator, the cost model and the benchmarks all read the same facts.
#ifndef KCOLL_BASE_NAMES_H_
#define KCOLL_BASE_NAMES_H_

#include <cstddef>
#include <cstdint>
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

// nccl-tests' bus-bandwidth factor (busbw = algbw * factor on n ranks): the fraction of a call's size S that must
// cross the busiest rank's link, so that busbw approaches the link's bandwidth whatever n is.
enum class BusBwScaling {
  kTwiceNMinusOneOverN,  // 2(n-1)/n: all_reduce
  kNMinusOneOverN,       // (n-1)/n: reduce_scatter, all_gather, alltoall, gather, scatter
  kOne,                  // broadcast, reduce, sendrecv
  kZero,                 // barrier: no payload
};

// What a collective is. nccl-tests' size S of a call with `count` elements of `e` bytes on n ranks is count * e, times
// n where `size_counts_every_rank` (the whole input of reduce_scatter, the whole output of all_gather, one rank's
// buffer of alltoall, the root's buffer of gather and scatter; `count` is per rank there, per peer for alltoall).
struct CollectiveFacts {
  Collective collective;
  absl::string_view name;
  bool rooted;   // takes a root rank
  bool reduces;  // takes a reduction op
  bool size_counts_every_rank;
  BusBwScaling busbw_scaling;
};

// The table's row of `c`; for a value outside the enumeration, a row named "invalid" with no size.
const CollectiveFacts& FactsOf(Collective c);

// Whether `c` is one of the enumerators (a C caller can pass any integer).
bool IsValid(Collective c);

// FactsOf(c).rooted, FactsOf(c).reduces.
bool IsRooted(Collective c);
bool Reduces(Collective c);

// nccl-tests' size S in bytes of a call (see CollectiveFacts); 0 for barrier.
uint64_t NcclTestsBytes(Collective c, size_t count, size_t element_bytes, int nranks);

// The busbw factor's value on `nranks` >= 1 ranks.
double BusBwFactorValue(Collective c, int64_t nranks);

// Parse a name (as printed above, case-insensitive). InvalidArgument names the text and lists the valid names.
absl::StatusOr<Collective> ParseCollective(absl::string_view text);
absl::StatusOr<Algorithm> ParseAlgorithm(absl::string_view text);

}  // namespace kcoll

#endif  // KCOLL_BASE_NAMES_H_
