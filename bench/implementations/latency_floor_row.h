// The latency floor as a row of the table (--algo floor): an AllReduce of one cache line with no library at all
// (bench/model/cache_line_exchange.h: every rank publishes its data in a shared line and sums every rank's, in rank
// order, so all ranks get the same bits). The run's header gives the floor measured back to back, 100 exchanges a
// batch; this row times the same exchange through the loop that times every other row (-m calls an iteration, the
// iteration's time combined across ranks in between), so a call's time can be read against the floor under the same
// conditions: one call per timed iteration included, where the exchange follows the benchmark's own MPI traffic.
//
// It runs AllReduce sum of up to 56 bytes (one line's payload) of integers, float and double, on the ranks of one
// node; other calls are Unimplemented, and the benchmark skips them saying why.
#ifndef KCOLL_BENCH_IMPLEMENTATIONS_LATENCY_FLOOR_ROW_H_
#define KCOLL_BENCH_IMPLEMENTATIONS_LATENCY_FLOOR_ROW_H_

#include <mpi.h>

#include <memory>

#include "absl/status/statusor.h"
#include "bench/implementations/implementation.h"
#include "bench/model/cache_line_exchange.h"

namespace kcoll {
namespace bench {

// The row's name and kind in the report.
inline constexpr char kLatencyFloorRowName[] = "latency_floor";
inline constexpr char kLatencyFloorRowKind[] = "floor";
// The largest call it runs: what one cache line carries beside its sequence number.
inline constexpr size_t kLatencyFloorRowMaxBytes = CacheLineExchange::kPayloadBytes;

// Collective over `comm`, whose ranks must share one host (an error naming the cause otherwise, on every rank).
absl::StatusOr<std::unique_ptr<Implementation>> MakeLatencyFloorRow(MPI_Comm comm);

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_IMPLEMENTATIONS_LATENCY_FLOOR_ROW_H_
