// What a benchmark run produces, independent of how it is printed: one Row per (implementation, size, type, op,
// root) with its out-of-place and in-place measurements, grouped in Blocks (one collective and one implementation),
// and the listeners that print them (the nccl-tests table, the JSON file, progress on stderr).
#ifndef KCOLL_BENCH_REPORTS_RESULTS_H_
#define KCOLL_BENCH_REPORTS_RESULTS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "base/names.h"
#include "base/types.h"
#include "models/analysis/model_check.h"

namespace kcoll {
namespace bench {

// Per-iteration statistics (nccl-tests' -I): over the per-iteration times, combined across ranks.
struct IterationStats {
  double min_us = 0, max_us = 0, avg_us = 0, p50_us = 0, p95_us = 0, p99_us = 0, stdev_us = 0, cv_pct = 0;
};
// Percentiles are nearest-rank (the smallest time with at least p% of the times at or below it).
IterationStats ComputeIterationStats(const std::vector<double>& times_us);

// --model with --rounds > 1: the rounds of a case whose link probe found the machine in the profile's state.
struct StateRounds {
  int rounds = 0;                         // how many of the case's rounds
  double p50_us = 0;                      // the median iteration of those rounds (0: none)
  std::optional<double> model_error_pct;  // the model's error against p50_us
};

struct Measurement {
  double time_us = 0;  // mean time of one operation, combined across ranks (-a)
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  std::optional<int64_t> wrong;  // elements wrong summed over ranks; empty when not checked (-c 0)
  // --fingerprint, floating-point reductions: FNV-1a of every rank's result, in rank order, of one call on
  // rounding-sensitive data (bench/data/rounding_data.h); rows with the same value produced the same bits.
  std::optional<uint64_t> fingerprint;
  int iterations = 0;                                  // timed iterations (each of agg_iters operations)
  std::optional<IterationStats> stats;                 // -I only
  std::vector<double> times_us;                        // -I only: per iteration, combined across ranks
  std::vector<std::vector<double>> per_rank_times_us;  // -I only: [rank][iteration]
  // --model, kcoll rows: the cost model's time for the call and 100 (model - time) / time
  // (models/analysis/model_check.h).
  std::optional<double> model_us;
  std::optional<double> model_error_pct;
  // --model: the link probe's ratio around the case (link_probe.h), the one farther from 1 of before and after.
  std::optional<double> link_ratio;
  // --model with --rounds > 1: the rounds that ran in the calibrated state. (With one round, link_ratio says
  // whether the case did.)
  std::optional<StateRounds> calibrated_rounds;
  // --rounds > 1: each round's median iteration (us), in round order. The rounds of one size run every implementation
  // within seconds of each other, so two rows' round-by-round ratios cancel the machine's slower drifts.
  std::vector<double> round_p50_us;
  // --model with --rounds > 1: each round's machine state (an index into the run's model states; 0 unless
  // --recalibrate measured more), in round order.
  std::vector<int> round_states;
  // --model, auto's rows: the algorithm auto ran in each round, in round order (it changes between rounds when
  // --recalibrate makes auto follow the machine's state).
  std::vector<Algorithm> round_algorithms;
  // --start aligned: of `iterations`, those some rank began after their agreed instant (bench/driver/aligned_start.h);
  // their times include the lateness.
  std::optional<int> late_starts;
};

struct Row {
  Collective collective = Collective::kAllReduce;
  std::string implementation;  // "ring", "auto", "MPI_Allreduce", "gloo"
  std::string kind;            // "kcoll", "mpi", "gloo"
  size_t bytes = 0;            // nccl-tests' size column (and S)
  size_t count = 0;            // the call's count argument
  DataType type = DataType::kFloat32;
  std::optional<ReduceOp> op;  // empty: the collective does not reduce ("none")
  int root = -1;               // -1: not rooted
  std::optional<Measurement> out_of_place, in_place;
  std::optional<double> ideal_busbw_gbps;
  std::optional<double> vs_mpi;  // kcoll rows: out-of-place busbw / the MPI peer's at the same size, type, op, root
  std::optional<Algorithm> model_algorithm;  // --model: the algorithm the model priced (what auto resolved to)
};

// busbw / ideal in percent, when both exist.
std::optional<double> EfficiencyPct(const Row& row, bool in_place);

// What an auto row ran: its model_algorithm's name, and when some rounds ran others, which and in how many rounds
// ("ring (hierarchical in 2 of 7 rounds)"); empty without model_algorithm.
std::string AutoRanText(const Row& row);

struct Block {
  Collective collective = Collective::kAllReduce;
  std::string implementation;
  std::string kind;
};

struct BlockSummary {
  int64_t wrong = 0;     // elements wrong over the block's checked rows
  double avg_busbw = 0;  // over every measurement of the block (out-of-place and in-place), as nccl-tests
  int measurements = 0;
  // --start aligned: late starts over the block's timed iterations (Measurement::late_starts).
  std::optional<int> late_starts;
  int aligned_iterations = 0;
};

// What a per-size summary is about: one (collective, size, type, op, root).
struct SizeIdentity {
  Collective collective = Collective::kAllReduce;
  size_t bytes = 0;
  DataType type = DataType::kFloat32;
  std::optional<ReduceOp> op;
  int root = -1;
};

// The best kcoll row at one size against the MPI peer's.
struct BestVsMpi : SizeIdentity {
  std::string best_algorithm;
  double kcoll_busbw = 0;
  double mpi_busbw = 0;
  double ratio = 0;
  // With -I 1: the same ratio from the median iterations (MPI's median time / kcoll's), steadier than the means.
  std::optional<double> ratio_p50;
};
std::vector<BestVsMpi> ComputeBestVsMpi(const std::vector<Row>& rows);

// `auto` against the fastest other kcoll algorithm at one (collective, size, type, op, root), out of place: the
// median iteration with -I 1, else the mean. With --model's link probe the comparison is between rows that ran in
// the calibrated state (InCalibratedState) when auto's did; `calibrated_state` says whether both did.
struct AutoVsFastest : SizeIdentity {
  std::string auto_ran;  // the algorithm auto resolved to, when --model recorded it
  std::string fastest;
  double auto_us = 0;
  double fastest_us = 0;
  double ratio = 0;  // auto_us / fastest_us
  // The algorithm auto ran, as measured in its own row (same state rule), over the fastest: the quality of the
  // choice alone. auto's row and its algorithm's row time the same schedule twice, and on a noisy machine the two
  // differ by the noise; empty when the run has no row of that algorithm.
  std::optional<double> choice_ratio;
  std::optional<double> auto_link_ratio, fastest_link_ratio;
  bool calibrated_state = false;
  // --rounds > 1: round by round. For each other kcoll algorithm with as many rounds, the median over the rounds of
  // auto's round median over the algorithm's (PairedRatio); the largest of them and its algorithm: how much auto
  // loses to the algorithm it loses to most, with the drifts between rounds cancelled.
  std::optional<double> paired_ratio;
  std::string paired_against;
  int paired_rounds = 0;
};

// The median (models/analysis/statistics.h) over i of a[i] / b[i]; empty unless both have the same number (at least 2)
// of positive values.
std::optional<double> PairedRatio(const std::vector<double>& a, const std::vector<double>& b);
std::vector<AutoVsFastest> ComputeAutoVsFastest(const std::vector<Row>& rows);

// Everything the header of a run shows.
struct RankInfo {
  int rank = 0;
  int node = 0;
  int pid = 0;
  std::string hostname;
  int device = -1;  // the CUDA device of a rank on device buffers; -1 on host buffers
};

struct RunInfo {
  std::string program;  // "all_reduce", ..., or "all"
  std::vector<Collective> collectives;
  size_t min_bytes = 0, max_bytes = 0, step_factor = 0, step_bytes = 0;
  int warmup_iters = 0, iters = 0, agg_iters = 0, check = 0;
  int rounds = 1;  // --rounds: each case's iterations are pooled over this many passes of the sweep
  bool per_iter_timing = false;
  std::string time_across;  // "max", "average", ...
  int time_across_code = 3;
  int nranks = 1, ranks_per_node = 1, nodes = 1;
  bool emulated_nodes = false;
  std::string exec;          // "serial", "openmp"
  std::string exec_note;     // threads per rank, why
  std::string timeout_note;  // what the kcoll rows wait with (empty: no timeout anywhere, nothing to say)
  std::string timing_note;   // what a row's time is when it is not one blocking call (--nonblocking)
  std::vector<std::string> transport_notes;  // per communicator: which rows, and what it runs on
  std::string launch;                        // how the ranks were started (mpirun line or "external mpirun")
  std::vector<RankInfo> ranks;
  std::optional<double> ideal_busbw_gbps;
  std::string ideal_note;      // inputs of the ideal, or why there is none
  double latency_floor_s = 0;  // the run's latency probe (0: not measured)
  double intra_bw_gbps = 0, inter_bw_gbps = 0;
  std::vector<std::string> args;
  std::vector<std::string> env;  // KCOLL_*, OMP_*, OMPI_MCA_* variables
  std::string start_time;
  std::string versions;      // "Open MPI v4.1.4, Kokkos 3.4.1"
  std::string machine;       // "vm: Intel(R) Xeon(R) Processor @ 2.50GHz, L3 35.8 MiB": host, CPU model, last cache
  int cores = 0;             // cores this process may run on
  double load_average = -1;  // 1-minute load average at the start (-1: unknown): other work competes with the ranks
  bool model = false;        // --model columns
  bool fingerprint = false;  // --fingerprint column
  std::string model_note;    // the model's machine: topology and profile
};

// The device a rank's header line shows (nccl-tests' "device" column, in the table and the JSON): its CUDA device on
// device buffers, else its position on its node.
int ShownDevice(const RankInfo& rank, const RunInfo& info);

// --recalibrate: a machine state of the run and the profile that describes it (ModelRun::states).
struct ModelStateInfo {
  std::string profile_path;
  double probe_us = 0;   // the profile's time for the link probe's exchange
  std::string measured;  // "at the start", "before <case>"
};

struct RunSummary {
  int64_t wrong = 0;                // over every checked row
  int failures = 0;                 // calls that failed (not Unimplemented)
  double avg_busbw_kcoll = 0;       // over every kcoll measurement
  std::vector<std::string> errors;  // failure messages
  std::vector<BestVsMpi> best_vs_mpi;
  std::vector<AutoVsFastest> auto_vs_fastest;
  // --model: median |error %| of the out-of-place model times per (collective, algorithm priced).
  std::vector<models::AlgorithmError> model_errors;
  // The same over the rows whose link probe found the machine in the profile's state (InCalibratedState).
  std::vector<models::AlgorithmError> model_errors_calibrated_state;
  std::vector<ModelStateInfo> model_states;  // --recalibrate: every state, in the order they were measured
  bool interrupted = false;
};

// A link probe's ratio (bench/model/link_probe.h) that says the machine was as the profile describes it: within
// [1 / kCalibratedStateTolerance, kCalibratedStateTolerance].
constexpr double kCalibratedStateTolerance = 1.3;
bool InCalibratedState(double link_ratio);
// A measurement that ran in the calibrated state: with --rounds, some of its rounds did; else its link ratio is in.
bool InCalibratedState(const Measurement& m);

// The time the calibrated-state comparisons use: the median iteration of the calibrated-state rounds when the
// measurement has some (--rounds), else its median iteration (-I), else its mean.
double CalibratedStateTimeUs(const Measurement& m);

// The model's error against CalibratedStateTimeUs.
std::optional<double> CalibratedStateModelErrorPct(const Measurement& m);

// The median |model error| per (collective, algorithm) over the rows' out-of-place measurements that have one; with
// `calibrated_state_only`, over those whose link ratio is in the calibrated state (link_probe.h).
std::vector<models::AlgorithmError> ModelErrors(const std::vector<Row>& rows, bool calibrated_state_only = false);

class ResultListener {
 public:
  virtual ~ResultListener() = default;
  virtual void OnRunStart(const RunInfo& info) {}
  virtual void OnBlockStart(const Block& block) {}
  virtual void OnRow(const Row& row) {}
  // Something the reader must know about the block: a skipped implementation, a failed call.
  virtual void OnNote(const Block& block, const std::string& note) {}
  virtual void OnBlockEnd(const Block& block, const BlockSummary& summary) {}
  virtual void OnFinish(const RunSummary& summary) {}
};

// Collects measurements in the order the benchmarks run them, pairs each size's out-of-place and in-place halves
// into a Row, and tells the listeners. Rows of a peer are remembered so that later kcoll rows get their ratio.
class ResultSink {
 public:
  explicit ResultSink(RunInfo info) : info_(std::move(info)) {}
  void AddListener(ResultListener* listener) { listeners_.push_back(listener); }
  const RunInfo& info() const { return info_; }

  void Start();
  // A measurement of `row` (its identity fields; the measurement slots are ignored).
  void Record(const Row& identity, bool in_place, const Measurement& m);
  // A note on the block of (collective, implementation); repeated notes of one block are told once.
  void Note(Collective collective, const std::string& implementation, const std::string& kind, const std::string& note);
  void Failure(const std::string& message) {
    ++failures_;
    errors_.push_back(message);
  }
  // --recalibrate: the run's machine states, for the summary.
  void SetModelStates(std::vector<ModelStateInfo> states) { model_states_ = std::move(states); }
  // Completes the last row and block and tells OnFinish.
  void Finish(bool interrupted = false);

  const std::vector<Row>& rows() const { return rows_; }
  int64_t wrong() const { return wrong_; }
  int failures() const { return failures_; }

 private:
  void EnterBlock(Collective collective, const std::string& implementation, const std::string& kind);
  void CompletePending();
  void EndBlock();

  RunInfo info_;
  std::vector<ResultListener*> listeners_;
  std::optional<Block> block_;
  BlockSummary block_summary_;
  std::optional<Row> pending_;
  std::vector<Row> rows_;
  std::vector<std::string> block_notes_;
  // Out-of-place busbw of MPI peer rows: (collective, bytes, type, op, root) -> busbw.
  std::map<std::tuple<int, size_t, int, int, int>, double> mpi_busbw_;
  int64_t wrong_ = 0;
  int failures_ = 0;
  std::vector<std::string> errors_;
  std::vector<ModelStateInfo> model_states_;
  double kcoll_busbw_sum_ = 0;
  int kcoll_measurements_ = 0;
};

// nccl-tests' names: "float", "half", "double", "bfloat16", "int8", ...; "none" for collectives without an op.
std::string NcclTypeName(DataType type);
std::string NcclOpName(const std::optional<ReduceOp>& op);

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_REPORTS_RESULTS_H_
