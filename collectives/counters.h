// What a communicator did, counted as it runs: per primitive (send, recv, reduce, copy, divide) the calls and
// bytes, transfers split into intra-node and inter-node bytes by peer (using the communicator's Topology), and per
// (collective, algorithm) the calls, payload bytes, time and the primitives those calls issued. Counting is a few
// additions per primitive, cheap enough to stay on.
//
// The counting happens in two decorators the Communicator puts around its transport and kernels (counting.h), so
// algorithms count without knowing it. Read through Communicator::counters(); SummarizeTraffic() turns them into the
// per-call numbers a benchmark reports.
#ifndef KCOLL_COLLECTIVES_COUNTERS_H_
#define KCOLL_COLLECTIVES_COUNTERS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "base/names.h"

namespace kcoll {

// Transfers posted (Send or Recv), by this rank.
struct TransferCounts {
  uint64_t calls = 0;
  uint64_t bytes = 0;
  uint64_t intra_node_bytes = 0;  // peer on this rank's node (itself included)
  uint64_t inter_node_bytes = 0;  // peer on another node

  TransferCounts& operator+=(const TransferCounts& o);
  TransferCounts& AddTimes(const TransferCounts& o, uint64_t times);  // `times` copies of `o`
  TransferCounts& operator-=(const TransferCounts& o);
  bool operator==(const TransferCounts& o) const;
};

// Kernel calls: bytes are those written (n elements of the type for Reduce and Divide, the byte count for Copy).
struct KernelCounts {
  uint64_t calls = 0;
  uint64_t bytes = 0;

  KernelCounts& operator+=(const KernelCounts& o);
  KernelCounts& AddTimes(const KernelCounts& o, uint64_t times);  // `times` copies of `o`
  KernelCounts& operator-=(const KernelCounts& o);
  bool operator==(const KernelCounts& o) const;
};

struct PrimitiveCounts {
  TransferCounts send;
  TransferCounts recv;
  KernelCounts reduce;
  KernelCounts copy;
  KernelCounts divide;

  PrimitiveCounts& operator+=(const PrimitiveCounts& o);
  PrimitiveCounts& operator-=(const PrimitiveCounts& o);
  // Adds `times` copies of `o` (the counts of `times` identical calls).
  PrimitiveCounts& AddTimes(const PrimitiveCounts& o, uint64_t times);
  bool operator==(const PrimitiveCounts& o) const;
};

// The calls of one collective with one algorithm.
struct CollectiveCounts {
  Collective collective = Collective::kAllReduce;
  Algorithm algorithm = Algorithm::kRing;
  uint64_t calls = 0;
  uint64_t bytes = 0;  // payload, summed over calls: nccl-tests' "size" (NcclTestsBytes, base/names.h)
  // Wall time inside the communicator, summed over calls (an inline AllReduce that repeats the previous call is timed
  // one in 16, the mean of those standing for the others: collectives/inline_path.h).
  double seconds = 0;
  PrimitiveCounts primitives;
};

struct Counters {
  PrimitiveCounts total;                      // every primitive, collectives or not
  std::vector<CollectiveCounts> collectives;  // one entry per (collective, algorithm) that ran, in first-run order

  // The entry of (collective, algorithm), created empty if absent.
  CollectiveCounts& Entry(Collective collective, Algorithm algorithm);
  // The entry, or nullptr.
  const CollectiveCounts* Find(Collective collective, Algorithm algorithm) const;
};

// Per-call averages for the benchmark, over the calls of `collective` (with `algorithm`, or with any algorithm).
// All zero when no call matched.
struct TrafficPerCall {
  uint64_t calls = 0;
  double payload_bytes = 0;  // nccl-tests' size
  double sent_bytes = 0;     // sent by this rank
  double intra_node_sent_bytes = 0;
  double inter_node_sent_bytes = 0;
  double received_bytes = 0;
  double inter_node_share = 0;  // inter_node_sent_bytes / sent_bytes (0 when nothing was sent)
  double seconds = 0;
};
TrafficPerCall SummarizeTraffic(const Counters& counters, Collective collective,
                                std::optional<Algorithm> algorithm = std::nullopt);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_COUNTERS_H_
