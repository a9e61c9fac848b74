// The inline path of small AllReduces (collectives/algorithms/all_reduce/inline.cc): whether a communicator has one,
// and up to which size `auto` takes it.
#ifndef KCOLL_COLLECTIVES_INLINE_PATH_H_
#define KCOLL_COLLECTIVES_INLINE_PATH_H_

#include <mpi.h>

#include <cstddef>
#include <memory>

#include "absl/status/statusor.h"
#include "base/names.h"
#include "base/topology.h"
#include "base/transport_kind.h"
#include "collectives/counters.h"
#include "collectives/kernels/backend.h"
#include "collectives/options.h"
#include "collectives/transport/shm/inline_exchange.h"

namespace kcoll {

// The largest AllReduce `auto` runs inline unless KCOLL_INLINE_MAX_BYTES says otherwise (docs/measured/ has the
// runs it comes from).
inline constexpr size_t kDefaultInlineMaxBytes = 1024;

// The collectives the inline exchange serves (their `inline` rows in base/algorithm_list.h).
inline bool HasInlineForm(Collective c) {
  return c == Collective::kAllReduce || c == Collective::kScan || c == Collective::kExScan;
}

// KCOLL_INLINE_MAX_BYTES (a byte size, 0: never inline), else kDefaultInlineMaxBytes; InvalidArgument naming the
// value when it is not a size or exceeds InlineExchange::kMaxPayloadBytes.
absl::StatusOr<size_t> InlineMaxBytes();

// The node's inline exchange when every rank of `comm` is on one node over the shared-memory transport with host
// kernels, else nullptr. Collective over `comm`.
absl::StatusOr<std::unique_ptr<InlineExchange>> MakeInlineExchange(MPI_Comm comm, const Topology& topology,
                                                                   TransportKind transport, ExecBackend backend,
                                                                   const TimeoutSettings& timeout);

// Counts an inline AllReduce of `bytes` per rank on `nranks` ranks in the primitive counters as the transfers and
// reductions it stands for: each of the n-1 peers reads this rank's lines (a send of `bytes` to each, within the
// node) and this rank reads theirs (n-1 receives), then folds n buffers (n-1 reductions).
void CountInlineAllReduce(size_t bytes, int nranks, PrimitiveCounts& total);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_INLINE_PATH_H_
