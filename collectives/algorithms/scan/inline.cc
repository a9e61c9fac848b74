// Inline Scan and ExScan (kInline), for small buffers on one node: the inline AllReduce's exchange
// (all_reduce/inline.cc). Every rank publishes its buffer in its own cache lines of the node's segment, waits until
// every rank has published, and folds the buffers of ranks 0..rank (Scan) or 0..rank-1 (ExScan; rank 0 writes nothing)
// in rank order from the shared lines (its own terms from its send buffer) into its receive buffer. One cache-line
// exchange for an 8-byte scan, instead of recursive doubling's log2 n message rounds; the communicator takes it up to
// its inline limit.
#include "collectives/algorithms/algorithm.h"

namespace kcoll {

absl::Status InlineStart(const CollectiveArgs& args, Resources& res);   // all_reduce/inline.cc
absl::Status InlineFinish(const CollectiveArgs& args, Resources& res);  // all_reduce/inline.cc

absl::Status InlineScan(const CollectiveArgs& args, Resources& res) {
  if (absl::Status published = InlineStart(args, res); !published.ok()) return published;
  return InlineFinish(args, res);
}

absl::Status InlineExScan(const CollectiveArgs& args, Resources& res) { return InlineScan(args, res); }

}  // namespace kcoll
