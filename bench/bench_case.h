// One Google Benchmark benchmark of the collective benchmarks: a (collective, implementation, type, op, root, size,
// in place or not) case, and the shared state every case of a run uses.
//
// Each case, on every rank: fills the inputs, runs one untimed call (which also tells whether the implementation
// can run it at all: an Unimplemented status skips the case, said once per block), runs -w warm-up iterations,
// then Google Benchmark's fixed -n iterations, each of -m calls, timed with a steady clock and combined across
// ranks (-a) into the manual iteration time; then -c checked calls on fresh inputs, counting wrong elements exactly.
// Rank 0 records the measurement in the ResultSink; every rank sets the same counters.
#ifndef KCOLL_BENCH_BENCH_CASE_H_
#define KCOLL_BENCH_BENCH_CASE_H_

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
#include "bench/implementation.h"
#include "bench/layout.h"
#include "bench/link_probe.h"
#include "bench/options.h"
#include "bench/results.h"
#include "collectives/communicator.h"
#include "models/analysis/model_check.h"

namespace kcoll {
namespace bench {

struct Case {
  int implementation = 0;  // index into BenchContext::implementations
  Collective collective = Collective::kAllReduce;
  DataType type = DataType::kFloat32;
  std::optional<ReduceOp> op;
  int root = -1;  // -1: not rooted
  Layout layout;
  bool in_place = false;
  std::string name;  // the Google Benchmark name
};

// A grow-only buffer aligned for vector loads; pages are first touched by whoever writes them.
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  ~AlignedBuffer();
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  // At least `bytes` bytes (at least one); contents are not kept when it grows.
  absl::Status Reserve(size_t bytes);
  char* data() { return data_; }

 private:
  char* data_ = nullptr;
  size_t capacity_ = 0;
};

// Aborts the job when no call has finished for `timeout_s` seconds (-T): prints which case hung and exits, which
// makes mpirun end the other ranks.
class Watchdog {
 public:
  Watchdog(int timeout_s, int rank);
  ~Watchdog();
  void Arm(const std::string& what);
  void Beat();
  void Disarm();

 private:
  void Loop();
  int timeout_s_;
  int rank_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> armed_{false};
  std::atomic<int64_t> last_beat_ns_{0};
  std::mutex what_mutex_;  // what_ is written by the benchmark's thread and read by the watchdog's
  std::string what_;
  std::thread thread_;
};

// A case's iterations over the rounds run so far (--rounds).
struct PooledRounds {
  std::vector<double> combined_s;  // per iteration, combined across ranks
  std::vector<double> mine_s;      // per iteration, this rank's own
  std::vector<size_t> round_ends;  // per round, where its iterations end in combined_s
  // --model: per round, the probe's ratio (to the round's state) farther from 1 of before and after (0: no probe)
  std::vector<double> link_ratios;
  std::vector<int> states;  // --model: per round, the BenchContext::states entry its probe found (rank 0; else 0)
  std::vector<Algorithm> algorithms;  // --model, auto: per round, the algorithm auto ran
  bool failed = false;                // a round failed: the later ones skip the case
};

// --model: a state of the machine the model prices rounds with: a profile's cost models and that profile's time for
// the link probe's exchange.
struct ModelState {
  models::ModelCheck model;
  double probe_seconds = 0;
  std::string profile_path;
  std::string measured;  // when: "at the start" or before which case
};

struct BenchContext {
  BenchContext() = default;
  ~BenchContext();  // frees the device buffers
  BenchContext(const BenchContext&) = delete;
  BenchContext& operator=(const BenchContext&) = delete;

  BenchOptions options;
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0;
  int nranks = 1;
  std::vector<std::unique_ptr<Implementation>> implementations;
  std::vector<Case> cases;
  AlignedBuffer send_buffer, recv_buffer;
  // --exec cuda: the calls run on device buffers of the same sizes; send_buffer and recv_buffer hold what is
  // copied in before a call and the results copied back to be checked.
  bool device = false;
  char* device_send = nullptr;
  char* device_recv = nullptr;
  size_t device_bytes_recv = 0;
  // The same sizes from Communicator::Allocate, for the rows on registered buffers (null without such rows).
  char* registered_send = nullptr;
  char* registered_recv = nullptr;
  std::optional<double> ideal_busbw_gbps;
  // --model: the machine's states: [0] the communicator's profile (the one auto starts with), then one per
  // --recalibrate; the state whose profile auto chooses with now; and the communicator that resolves `auto`.
  std::vector<ModelState> states;
  int auto_state = 0;
  int recalibrations_left = 0;
  Communicator* kcoll = nullptr;
  std::optional<LinkProbe> probe;  // --model: the links now, around every case
  ResultSink* sink = nullptr;      // rank 0 only
  std::unique_ptr<Watchdog> watchdog;
  // (implementation, type, op) combinations an implementation cannot run, with the reason.
  std::map<std::tuple<int, int, int>, std::string> unimplemented;
  // Out-of-place busbw of the MPI peer's rows, for the vs-MPI counter: (collective, bytes, type, op, root).
  std::map<std::tuple<int, size_t, int, int, int>, double> mpi_busbw;
  // Agreed across ranks: any wrong element or failed call so far.
  int64_t wrong = 0;
  int failures = 0;
  std::vector<PooledRounds> pooled;  // per case (sized with `cases`)
  // --rounds > 1: what the cases tell the sink, replayed in case order after the last round (SendToSink).
  std::vector<std::pair<int, std::function<void(ResultSink&)>>> deferred;
  std::chrono::steady_clock::time_point start;
  bool progress = false;  // rank 0: a line per case on stderr (when stdout is not a terminal)
  int cases_done = 0;
};

// "all_reduce ring float sum 65536 B out-of-place": the case in words, for messages.
std::string Describe(const Case& c, const Implementation& impl);

// The call's count times its element size: the size auto chooses by.
size_t CallBytes(const Case& c);

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

#endif  // KCOLL_BENCH_BENCH_CASE_H_
