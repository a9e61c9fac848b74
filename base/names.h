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
#include "base/algorithm_list.h"

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
  kScan,            // inclusive prefix reduction over ranks 0..r (MPI_Scan)
  kExScan,          // exclusive: over ranks 0..r-1; rank 0's recvbuf is left as it was (MPI_Exscan)
  kAllGatherV,      // MPI_Allgatherv: per-rank counts and displacements
  kAllToAllV,       // MPI_Alltoallv
  kReduceScatterV,  // MPI_Reduce_scatter: block i (recvcounts[i] elements) of the reduction lands on rank i
  kGatherV,         // MPI_Gatherv: counts and displacements significant at the root only
  kScatterV,        // MPI_Scatterv
};

enum class Algorithm {
  kAuto,  // chosen per call by the cost model (or a size threshold)
#define KCOLL_ALGORITHM_ENUMERATOR(enumerator, name, simplicity, needs) k##enumerator,
  KCOLL_ALGORITHMS(KCOLL_ALGORITHM_ENUMERATOR)
#undef KCOLL_ALGORITHM_ENUMERATOR
};

// What a call needs before an algorithm can run (base/algorithm_list.h says which needs what).
enum class AlgorithmNeeds {
  kNothing,
  kRegisteredBuffers,  // every rank's buffers from Communicator::Allocate, on one node over shared memory
  kEqualNodes,         // the same number of ranks on every node
  kOneNodeShm,         // every rank on one node over the shared-memory transport, on host buffers
  kVendorMpi,          // host buffers, on a thread that may call MPI (collectives/algorithms/all_reduce/vendor.cc)
};

// An algorithm's row of base/algorithm_list.h.
struct AlgorithmFacts {
  Algorithm algorithm;
  absl::string_view name;
  int simplicity;  // ties between predicted times go to the smaller
  AlgorithmNeeds needs;
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
  kNMinusOneOverN,       // (n-1)/n: reduce_scatter, all_gather(v), alltoall(v), gather, scatter
  kOne,                  // broadcast, reduce, sendrecv, scan, exscan
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

// The row of `a`; kAuto's has the name "auto", the largest simplicity and no needs.
const AlgorithmFacts& FactsOf(Algorithm a);

// The algorithms that serve `c` (KCOLL_SCHEDULES), in the list's order: the first is its fallback default.
std::vector<Algorithm> AlgorithmsFor(Collective c);
// The algorithms that move their data through the transport, on any buffers: without those that need registered
// buffers (direct) or the node's inline exchange (inline).
std::vector<Algorithm> TransferAlgorithmsFor(Collective c);
// Whether the schedule of (c, a) reads on the host what it received to decide its next transfers (bruck's alltoallv:
// the block sizes each step brings), so that it runs on host ranks only: host buffers, and a transport that completes
// transfers on the host (not NCCL's stream, not a device staging transport).
bool NeedsHostRanks(Collective c, Algorithm a);

// FactsOf(a).simplicity: ties between predicted times go to the algorithm with the smaller rank.
int SimplicityRank(Algorithm a);

// How many ranks' data `rank`'s result of `c` reduces (what kAvg divides by): nranks, or for the scans the ranks up to
// (Scan: rank + 1) or below (ExScan: rank) `rank`.
int ReducedRanks(Collective c, int rank, int nranks);

// Whether `c` takes per-rank counts and displacements (CollectiveArgs' arrays).
bool IsVariable(Collective c);

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
