// The bytes an AllReduce must move between ranks, moved once and nothing else, as a row of the table (--algo copy):
// the bandwidth counterpart of the latency floor row. Each rank reads, straight from its peers' send buffers, the
// bytes busbw counts (2 (p - 1) / p of the message): its own block from every peer, as a reduce-scatter receives it,
// and every peer's own block, as an all-gather receives the reduced one. One kernel copy per peer
// (process_vm_readv: the single copy Open MPI's shared-memory transport and kcoll's KCOLL_SHM_SINGLE_COPY use), into
// a scratch buffer of the row's own; nothing is reduced, so the row's result is not checked (#wrong N/A). Two
// cache-line exchanges bracket the reads: the first carries each rank's send address, the second keeps a buffer in
// place until every peer has read it.
//
// Its busbw is what moving the collective's cross-rank bytes once by a single copy sustains on this machine at this
// size, measured in the run beside the rows it is compared with: the bound the in-place AllReduce of MPI's
// single-copy transport cannot beat, and the one kcoll's pipelined slots can (their bytes stay in the caches).
// AllReduce only, on the ranks of one host, where one process may read another's memory (ptrace permission).
#ifndef KCOLL_BENCH_IMPLEMENTATIONS_PEER_COPY_ROW_H_
#define KCOLL_BENCH_IMPLEMENTATIONS_PEER_COPY_ROW_H_

#include <mpi.h>

#include <memory>

#include "absl/status/statusor.h"
#include "bench/implementations/implementation.h"

namespace kcoll {
namespace bench {

// The row's name and kind in the report.
inline constexpr char kPeerCopyRowName[] = "peer_copy";
inline constexpr char kPeerCopyRowKind[] = "copy";

// Collective over `comm`, whose ranks must share one host and may read each other's memory (an error naming the
// cause otherwise, on every rank).
absl::StatusOr<std::unique_ptr<Implementation>> MakePeerCopyRow(MPI_Comm comm);

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_IMPLEMENTATIONS_PEER_COPY_ROW_H_
