// The state every case of a benchmark run shares: the cases, their implementations, the buffers, the model's
// states and what rank 0 reports, grouped by who needs them.
#ifndef KCOLL_BENCH_DRIVER_BENCH_CONTEXT_H_
#define KCOLL_BENCH_DRIVER_BENCH_CONTEXT_H_

#include <mpi.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "base/names.h"
#include "base/types.h"
#include "bench/data/aligned_buffer.h"
#include "bench/data/layout.h"
#include "bench/driver/watchdog.h"
#include "bench/implementations/implementation.h"
#include "bench/model/link_probe.h"
#include "bench/options/options.h"
#include "bench/reports/results.h"
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

// A case's iterations over the rounds run so far (--rounds).
struct PooledRounds {
  std::vector<double> combined_s;  // per iteration, combined across ranks
  std::vector<double> mine_s;      // per iteration, this rank's own
  std::vector<size_t> round_ends;  // per round, where its iterations end in combined_s
  // --model: per round, the probe's ratio (to the round's state) farther from 1 of before and after (0: no probe)
  std::vector<double> link_ratios;
  std::vector<int> states;            // --model: per round, the ModelRun::states entry its probe found (rank 0; else 0)
  std::vector<Algorithm> algorithms;  // --model, auto: per round, the algorithm auto ran
  int late_starts = 0;                // --start aligned: iterations that some rank began after their instant (agreed)
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

// The benchmark's buffers: host buffers every call reads and writes, and with --exec cuda or --registered the
// device or registered buffers of the same sizes the calls run on.
struct Buffers {
  Buffers() = default;
  ~Buffers();  // frees the device buffers
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;

  AlignedBuffer send_buffer, recv_buffer;
  // --exec cuda: the calls run on device buffers of the same sizes; send_buffer and recv_buffer hold what is
  // copied in before a call and the results copied back to be checked.
  bool device = false;
  char* device_send = nullptr;
  char* device_recv = nullptr;
  size_t device_bytes_recv = 0;
  // The same sizes from Communicator::Allocate, for the rows on registered buffers (null without such rows); device
  // memory with --exec cuda, mirrored by send_buffer and recv_buffer as the device buffers are.
  char* registered_send = nullptr;
  char* registered_recv = nullptr;
  size_t registered_bytes_send = 0;
  size_t registered_bytes_recv = 0;
};

// --model and --recalibrate: the machine's states: [0] the communicator's profile (the one auto starts with), then
// one per --recalibrate; the state whose profile auto chooses with now; and the communicator that resolves `auto`.
struct ModelRun {
  std::vector<ModelState> states;
  int auto_state = 0;
  int recalibrations_left = 0;
  Communicator* kcoll = nullptr;
  std::optional<LinkProbe> probe;  // the links now, around every case
};

// What rank 0 reports and what every rank agrees on about the rows.
struct Reporting {
  ResultSink* sink = nullptr;  // rank 0 only
  // (implementation, type, op) combinations an implementation cannot run, with the reason.
  std::map<std::tuple<int, int, int>, std::string> unimplemented;
  // Out-of-place busbw of the MPI peer's rows, for the vs-MPI counter: (collective, bytes, type, op, root).
  std::map<std::tuple<int, size_t, int, int, int>, double> mpi_busbw;
  // --rounds > 1: what the cases tell the sink, replayed in case order after the last round (SendToSink).
  std::vector<std::pair<int, std::function<void(ResultSink&)>>> deferred;
  std::chrono::steady_clock::time_point start;
  bool progress = false;  // rank 0: a line per case on stderr (when stdout is not a terminal)
  int cases_done = 0;
};

struct BenchContext {
  BenchOptions options;
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0;
  int nranks = 1;
  std::vector<std::unique_ptr<Implementation>> implementations;
  std::vector<Case> cases;
  std::vector<PooledRounds> pooled;  // per case (sized with `cases`)
  Buffers buffers;
  std::optional<double> ideal_busbw_gbps;
  double latency_floor_s = 0;  // the latency probe's, on one node (0: not measured)
  bool start_spins = false;    // --start aligned: ranks wait for an instant polling the clock (SpinWhileWaiting)
  MPI_Comm same_clock = MPI_COMM_NULL;  // --start aligned: the ranks of each machine (HostCommunicator)
  ModelRun model;
  Reporting report;
  std::unique_ptr<Watchdog> watchdog;
  // Agreed across ranks: any wrong element or failed call so far.
  int64_t wrong = 0;
  int failures = 0;
};

// "all_reduce ring float sum 65536 B out-of-place": the case in words, for messages.
std::string Describe(const Case& c, const Implementation& impl);

// "all_reduce/ring/float/sum/65536/out_of_place" (a root as /root:R after the op): the case's benchmark name.
std::string CaseName(const Case& c, const Implementation& impl);

// The call's count times its element size: the size auto chooses by.
size_t CallBytes(const Case& c);

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_DRIVER_BENCH_CONTEXT_H_
