// Command-line options of the collective benchmarks, with nccl-tests' letters and long names where nccl-tests has
// them (-b -e -f -i -n -w -m -c -o -d -r -a -T -I -J) and kcoll's own long options. Values come as "-b 8", "-b8",
// "--minbytes 8" or "--minbytes=8". Google Benchmark's --benchmark_* flags and Kokkos' --kokkos-* flags are left for
// their libraries. Every bad value is an InvalidArgument naming the flag and the value.
#ifndef KCOLL_BENCH_OPTIONS_OPTIONS_H_
#define KCOLL_BENCH_OPTIONS_OPTIONS_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "base/names.h"
#include "base/types.h"
#include "collectives/options.h"

namespace kcoll {
namespace bench {

// How one iteration's time is combined across ranks (nccl-tests' -a).
enum class TimeAcrossRanks { kRank0 = 0, kAverage = 1, kMin = 2, kMax = 3 };
const char* TimeAcrossRanksName(TimeAcrossRanks mode);

// What --algo selects: kcoll algorithms by name, "auto" (kcoll's own per-call choice), and the peers.
struct AlgoSelection {
  bool all = true;                    // every registered kcoll algorithm plus every peer
  std::vector<Algorithm> algorithms;  // kcoll algorithms named (kAuto for "auto")
  bool mpi = false;                   // the vendor MPI collective
  bool gloo = false;                  // Gloo (AllReduce only)
  bool nccl = false;                  // NCCL's collectives (with --exec cuda)
  bool floor = false;                 // the latency floor's exchange as a row (AllReduce of one cache line)
  bool copy = false;                  // an AllReduce's cross-rank bytes moved once by single copies, as a row
};

struct BenchOptions {
  size_t min_bytes = 8;                                 // -b
  size_t max_bytes = size_t{128} << 20;                 // -e
  size_t step_factor = 2;                               // -f (used when > 1)
  size_t step_bytes = 0;                                // -i (used when -f is 1 or not given and -i is)
  int iters = 20;                                       // -n
  int warmup_iters = 5;                                 // -w
  int agg_iters = 1;                                    // -m
  int check = 1;                                        // -c: number of checked calls per size (0: no check)
  std::vector<ReduceOp> ops{ReduceOp::kSum};            // -o (or "all")
  std::vector<DataType> types{DataType::kFloat32};      // -d (or "all")
  std::optional<int> root = 0;                          // -r; nullopt: every rank in turn ("all")
  TimeAcrossRanks time_across = TimeAcrossRanks::kMax;  // -a
  int timeout_s = 0;                                    // -T: abort when one call takes longer (0: never)
  bool per_iter_timing = false;                         // -I
  AlgoSelection algos;                                  // --algo
  std::string json_path;                                // --json / -J
  std::string exec = "serial";                          // --exec serial|openmp
  int ranks = 2;                                        // --ranks
  bool ranks_given = false;
  int ranks_per_node = 0;    // --ranks_per_node (0: the nodes MPI reports)
  int hosts = 0;             // --hosts: hosts made on this machine by tools/cluster.sh (0: none)
  double intra_bw_gbps = 0;  // --intra_bw
  double inter_bw_gbps = 0;  // --inter_bw
  std::string profile_path;  // --profile
  bool model = false;        // --model: the cost model's predicted time and error % per kcoll row
  // --calibrate: where to save the profile measured at the start of the run (then used as profile_path).
  std::string calibrate_path;
  // --calibrate_ms: timed milliseconds per size of the --calibrate (and --recalibrate) sweep; shorter measures faster
  // and noisier.
  int calibrate_ms = 200;
  // --calibrate_max: the largest message and local buffer of that sweep.
  size_t calibrate_max_bytes = size_t{64} << 20;
  // --touch_input: every rank rewrites each cache line of its input before every timed iteration (untimed), so a
  // peer that reads it pulls lines this rank just modified, as it would in an application, instead of a copy it
  // kept in its own cache from the previous iteration.
  bool touch_input = true;
  // --nonblocking P (0: off): every timed iteration issues the call's nonblocking form, computes for P% of the
  // blocking call's time (measured in the same round), then waits; the time column is what the call left exposed:
  // the iteration minus the same computation timed alone.
  int nonblocking_pct = 0;
  // --registered: kcoll rows on buffers from Communicator::Allocate (`auto registered`, and `direct`, the zero-copy
  // algorithm, which runs only on them) beside the rows on ordinary buffers.
  bool registered = false;
  // --rounds: the whole sweep runs this many times, size by size, and each case pools its iterations of every
  // round: on a machine whose speed drifts for seconds to minutes (a virtual machine), every case then samples the
  // same stretches of time, and cases compare with each other fairly.
  int rounds = 1;
  // --recalibrate: with --calibrate and --model, how many more profiles the run may measure: when the link probe
  // before a case finds the machine outside every state measured so far (kCalibratedStateTolerance), the run
  // calibrates again and prices the rounds that ran in that state with that profile.
  int recalibrate = 0;
  // --with_timeout: every kcoll row also runs on a second communicator with this timeout, the first one having none.
  std::optional<absl::Duration> with_timeout;
  // --transport: "auto", "mpi", "shm", "nccl", "cuda_ipc"; the first for the plain rows, each other one for rows of its
  // own.
  std::vector<std::string> transports = {"auto"};
  // --numerics: "fast", "deterministic"; the first for the plain rows, each other one for rows of its own.
  std::vector<Numerics> numerics = {Numerics::kFast};
  // --fingerprint: a column with a hash of each floating-point reduction's result on rounding-sensitive data (on when
  // --numerics lists several modes).
  bool fingerprint = false;
  // --start aligned: every rank begins each timed iteration at one agreed instant of rank 0's clock
  // (bench/driver/aligned_start.h); false (--start free, the default): as it leaves the previous iteration's
  // agreement, as nccl-tests does.
  bool aligned_start = false;
  bool help = false;  // -h / --help
};

// Facts the parser checks values against.
struct ParseContext {
  bool gloo_available = false;              // built with Gloo
  bool nccl_available = false;              // built with NCCL
  std::vector<std::string> exec_available;  // "serial", "openmp", "cuda"
};

// Parses args (argv without the program name). Arguments starting with --benchmark_ or --kokkos- are skipped.
absl::StatusOr<BenchOptions> ParseBenchOptions(const std::vector<std::string>& args, const ParseContext& context);

// Checks that need the number of ranks (root, ranks per node, --ranks under an outside mpirun).
absl::Status ValidateForRanks(const BenchOptions& options, int nranks, bool launched_by_us);

// The help text.
std::string Usage(absl::string_view program, const ParseContext& context);

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_OPTIONS_OPTIONS_H_
