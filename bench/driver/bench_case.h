// One Google Benchmark benchmark of the collective benchmarks: a (collective, implementation, type, op, root, size,
// in place or not) case of the run's BenchContext (bench_context.h).
//
// Each case, on every rank: fills the inputs, runs one untimed call (which also tells whether the implementation
// can run it at all: an Unimplemented status skips the case, said once per block), runs -w warm-up iterations,
// then Google Benchmark's fixed -n iterations, each of -m calls, timed with a steady clock and combined across
// ranks (-a) into the manual iteration time; then -c checked calls on fresh inputs, counting wrong elements exactly.
// Rank 0 records the measurement in the ResultSink; every rank sets the same counters.
#ifndef KCOLL_BENCH_DRIVER_BENCH_CASE_H_
#define KCOLL_BENCH_DRIVER_BENCH_CASE_H_

#include <benchmark/benchmark.h>
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "bench/driver/bench_context.h"

namespace kcoll {
namespace bench {

// The benchmark body of `ctx.cases[index]` in round `round` (0-based, of --rounds): every round times the case and
// pools its iterations; the last one also checks the results and records the row of the pooled iterations.
void RunCase(benchmark::State& state, BenchContext& ctx, int index, int round = 0);

// Rank 0: hands `emit` to the sink now, or with --rounds > 1 keeps it for ReplayDeferred: the rounds run the cases
// size-major (every implementation of a size within seconds of the others), while the report reads block by block.
void SendToSink(BenchContext& ctx, int index, std::function<void(ResultSink&)> emit);

// After the last round: what SendToSink kept, in case order (stable: a case's own order is kept).
void ReplayDeferred(BenchContext& ctx);

// The order in which the rounds run the cases: as built (implementation-major) with one round; with several, by
// (collective, size, type, op, root, in place), implementations in their order within each.
std::vector<int> RoundOrder(const std::vector<Case>& cases, int rounds);

// The largest send and receive buffers (bytes) any case needs; in-place cases use the receive buffer for both.
void BufferBytes(const BenchContext& ctx, size_t* send_bytes, size_t* recv_bytes);

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_DRIVER_BENCH_CASE_H_
