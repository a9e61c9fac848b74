// The inline path of small AllReduces (collectives/algorithms/all_reduce/inline.cc): whether a communicator has one,
// and up to which size `auto` takes it.
#ifndef KCOLL_COLLECTIVES_INLINE_PATH_H_
#define KCOLL_COLLECTIVES_INLINE_PATH_H_

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/names.h"
#include "base/topology.h"
#include "base/transport_kind.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/counters.h"
#include "collectives/kernels/backend.h"
#include "collectives/kernels/host_reduce.h"
#include "collectives/options.h"
#include "collectives/transport/shm/inline_exchange.h"

namespace kcoll {

// The largest AllReduce `auto` runs inline where the communicator does not measure it (see InlineLimitSetting) and
// KCOLL_INLINE_MAX_BYTES does not say otherwise (docs/measured/ has the runs it comes from).
inline constexpr size_t kDefaultInlineMaxBytes = 1024;

// The collectives the inline exchange serves (their `inline` rows in base/algorithm_list.h).
inline bool HasInlineForm(Collective c) {
  return c == Collective::kAllReduce || c == Collective::kScan || c == Collective::kExScan;
}

// KCOLL_INLINE_MAX_BYTES: a byte size (0: never inline) pins the limit; unset or `measure` leaves it to the
// communicator, which measures it at creation where it can (nullopt here). InvalidArgument naming the value when it is
// neither or exceeds InlineExchange::kMaxPayloadBytes.
absl::StatusOr<std::optional<size_t>> InlineLimitSetting();

// Where the inline lane stops paying is a property of the machine's caches and cores: a one-node communicator over shm
// times `auto` AllReduces of these sizes both ways (inline, and over the slots with the algorithm `auto` picks there)
// when it is created, and the lane keeps every size it wins up to the first it loses. Sizes up to kInlineFloorBytes go
// inline without a measurement (the lane wins clearly there on every machine measured, docs/shm.md); the largest
// candidate is the most a rank's lines hold.
inline constexpr size_t kInlineFloorBytes = 128;
inline constexpr size_t kInlineCandidateBytes[] = {256, 512, 1024, 2048, 4096};

// One candidate's seconds per call, the largest across ranks of each rank's median.
struct InlineTiming {
  size_t bytes = 0;
  double inline_seconds = 0;
  double slots_seconds = 0;
};

// The limit the timings give: the largest candidate such that the lane is no slower at it and at every smaller one,
// else kInlineFloorBytes. The same on every rank given the same timings.
size_t ChooseInlineLimit(const std::vector<InlineTiming>& timings);

// "512 B", "2 KiB": the limit and candidate sizes as the description prints them.
std::string FormatInlineBytes(size_t bytes);

// "inline / over the slots, us per call: 256 B 1.10/1.85, 512 B ..." for the communicator's description.
std::string DescribeInlineTimings(const std::vector<InlineTiming>& timings);

// The node's inline exchange when every rank of `comm` is on one node over the shared-memory transport with host
// kernels, else nullptr. Collective over `comm`.
absl::StatusOr<std::unique_ptr<InlineExchange>> MakeInlineExchange(MPI_Comm comm, const Topology& topology,
                                                                   TransportKind transport, ExecBackend backend,
                                                                   const TimeoutSettings& timeout);

// Counts an inline AllReduce of `bytes` per rank on `nranks` ranks in the primitive counters as the transfers and
// reductions it stands for: each of the n-1 peers reads this rank's lines (a send of `bytes` to each, within the
// node) and this rank reads theirs (n-1 receives), then folds n buffers (n-1 reductions).
void CountInlineAllReduce(size_t bytes, int nranks, PrimitiveCounts& total);

// What an inline call's bookkeeping derives from its arguments (the signature the exchange compares, the payload
// size the counters add, the primitives it stands for, its counters' entry), kept for the next call with the same
// arguments: a loop repeats one call, and deriving them again costs a tenth of an 8-byte call.
struct InlineCallMemo {
  bool valid = false;
  // An AllReduce whose repeats may take RunRepeatedInline: not an exact sum, a fold for its op and type.
  bool repeatable = false;
  Collective collective = Collective::kAllReduce;
  size_t count = 0;
  DataType type = DataType::kFloat32;
  ReduceOp op = ReduceOp::kSum;
  bool exact_sum = false;
  AlgorithmOptions tuning;
  uint32_t signature = 0;
  uint64_t bytes = 0;          // CallBytes
  size_t payload_bytes = 0;    // what each rank publishes: count elements of the type
  PrimitiveCounts primitives;  // CountInlineAllReduce's, for one call
  HostFoldFn fold = nullptr;   // HostReduceInOrder of the op and type, for the repeated calls
  size_t entry_index = 0;      // where the entry was in Counters::collectives; checked before use
  // Repeats of the call (Communicator::RunRepeatedInline) not yet in the counters: the counters take them in one
  // addition when next read or when the memo is replaced, which keeps some twenty additions a call off the 8-byte
  // path. Of those, the first of every kRepeatTimedEvery is timed (reading the clock after the fold costs about a
  // tenth of an 8-byte call), and their mean time stands for each.
  static constexpr uint64_t kRepeatTimedEvery = 16;
  uint64_t untallied_calls = 0;
  uint64_t timed_calls = 0;
  uint64_t timed_ticks = 0;
  // Forgets the untallied repeats (once tallied, or dropped by a reset of the counters).
  void DropUntallied() { untallied_calls = timed_calls = timed_ticks = 0; }

  bool Matches(const CollectiveArgs& args) const {
    return valid && args.collective == collective && args.count == count && args.type == type && args.op == op &&
           args.exact_sum == exact_sum && args.options.nchannels == tuning.nchannels &&
           args.options.chunk_bytes == tuning.chunk_bytes;
  }
  // The counters' entry of (collective, kInline), created if absent (Counters::Entry), found again after a reset.
  CollectiveCounts& EntryIn(Counters& counters);
};

// The memo of an inline call of `args` on `nranks` ranks.
InlineCallMemo MakeInlineCallMemo(const CollectiveArgs& args, int rank, int nranks);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_INLINE_PATH_H_
