// The main of a small benchmark program that starts its own ranks (//bench:drop_in, :group, :overlap): parse the
// command line from a table of flags, start the ranks under mpirun when not already one of them, and on each rank run
// the program between MPI_Init and Kokkos' initialisation and their finalisation.
#ifndef KCOLL_BENCH_OPTIONS_RANK_PROGRAM_H_
#define KCOLL_BENCH_OPTIONS_RANK_PROGRAM_H_

#include <algorithm>
#include <cstddef>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/byte_size.h"
#include "bench/options/mpi_launcher.h"
#include "collectives/communicator.h"
#include "collectives/options.h"

namespace kcoll {
namespace bench {

// Reads a flag's value into the options; false when the value is not valid.
template <class Options>
using FlagReader = std::function<bool(const std::string& value, Options& o)>;
template <class Options>
using FlagTable = std::vector<std::pair<std::string, FlagReader<Options>>>;

// `args` as "FLAG VALUE" pairs read with `flags` into default Options (Kokkos' --kokkos-* flags are passed over).
// InvalidArgument names an unknown flag, one without a value, or the flag and its value when the value is refused.
template <class Options>
absl::StatusOr<Options> ParseFlags(const std::vector<std::string>& args, const FlagTable<Options>& flags) {
  Options o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag.rfind("--kokkos", 0) == 0) continue;
    auto known = std::find_if(flags.begin(), flags.end(), [&](const auto& f) { return f.first == flag; });
    if (known == flags.end()) return absl::InvalidArgumentError(absl::StrCat("unknown option '", flag, "'"));
    if (i + 1 >= args.size()) return absl::InvalidArgumentError(absl::StrCat(flag, ": needs a value"));
    const std::string& value = args[++i];
    if (!known->second(value, o)) {
      return absl::InvalidArgumentError(absl::StrCat(flag, ": '", value, "' is not valid"));
    }
  }
  return o;
}

// A number (integer or floating-point) in [low, high].
template <class Options, class Number>
FlagReader<Options> NumberIn(Number Options::*field, Number low, Number high = std::numeric_limits<Number>::max()) {
  return [=](const std::string& value, Options& o) {
    Number v{};
    bool parsed;
    if constexpr (std::is_floating_point_v<Number>) {
      double d;
      parsed = absl::SimpleAtod(value, &d);
      v = static_cast<Number>(d);
    } else {
      parsed = absl::SimpleAtoi(value, &v);
    }
    if (!parsed || v < low || v > high) return false;
    o.*field = v;
    return true;
  };
}

// A byte size (ParseByteSize: 8, 4K, 64M) in [low, high].
template <class Options>
FlagReader<Options> BytesIn(size_t Options::*field, size_t low, size_t high = std::numeric_limits<size_t>::max()) {
  return [=](const std::string& value, Options& o) {
    absl::StatusOr<size_t> bytes = ParseByteSize(value);
    if (!bytes.ok() || *bytes < low || *bytes > high) return false;
    o.*field = *bytes;
    return true;
  };
}

// The flags of a sweep over sizes that the programs share, with their defaults: --ranks, -b, -e, -f, -n, -w, --rounds.
struct SweepOptions {
  int ranks = 2;
  size_t min_bytes = 8, max_bytes = size_t{1} << 20, factor = 8;
  int iters = 200, warmup = 20, rounds = 3;
  CommunicatorOptions communicator;  // how the program's communicator is made
};

// SweepOptions' flags for an Options derived from it: at least `min_ranks` ranks and 4 bytes (one float).
template <class Options>
FlagTable<Options> SweepFlags(int min_ranks) {
  return {{"--ranks", NumberIn<Options, int>(&Options::ranks, min_ranks)},
          {"-b", BytesIn<Options>(&Options::min_bytes, 4)},
          {"-e", BytesIn<Options>(&Options::max_bytes, 4)},
          {"-f", NumberIn<Options, size_t>(&Options::factor, 2)},
          {"-n", NumberIn<Options, int>(&Options::iters, 1)},
          {"-w", NumberIn<Options, int>(&Options::warmup, 0)},
          {"--rounds", NumberIn<Options, int>(&Options::rounds, 1)}};
}

// The sizes of the sweep: min_bytes, times factor, up to max_bytes.
std::vector<size_t> SweepSizes(const SweepOptions& o);

// How a program's ranks are started, where it differs from the default (bound to cores as the launch plan says,
// MPI_Init): //bench:overlap leaves its ranks unbound so that a progress thread can run beside the computation.
struct RankLaunch {
  std::string exec = "serial";                                  // BenchOptions::exec of the launch plan
  std::vector<std::pair<std::string, std::string>> forced_env;  // set in every rank's environment
  bool thread_multiple = false;                                 // MPI_Init_thread(MPI_THREAD_MULTIPLE)
};

// Prints "`program`: <message>" on rank 0 (or when not under a launcher) and returns 2, the bad-option exit code.
int ReportBadOptions(const std::string& program, const absl::Status& status);

// Replaces this process with mpirun starting `ranks` ranks of this program with `args`; returns only on failure.
int LaunchRanks(int ranks, const std::vector<std::string>& args, const std::string& program, const RankLaunch& launch);

// MPI_Init (MPI_Init_thread with `thread_multiple`), Kokkos' initialisation (quietly), a communicator of MPI_COMM_WORLD
// made with `communicator` (when that fails: "`program`: <status>" and 1), `run` with it, then the communicator's
// Finalize, Kokkos::finalize and MPI_Finalize. Returns what `run` returned.
int RunOnRanks(int argc, char** argv, const std::string& program, bool thread_multiple,
               const CommunicatorOptions& communicator, const std::function<int(Communicator&)>& run);

// Options: a struct with an `int ranks` field and a `CommunicatorOptions communicator` field (SweepOptions has both).
template <class Options>
int RankProgramMain(int argc, char** argv, const std::string& program,
                    absl::StatusOr<Options> (*parse)(const std::vector<std::string>&),
                    int (*run)(const Options&, Communicator&), const RankLaunch& launch = {}) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  absl::StatusOr<Options> options = parse(args);
  if (!options.ok()) return ReportBadOptions(program, options.status());
  if (!StartedByMpiLauncher()) return LaunchRanks(options->ranks, args, program, launch);
  return RunOnRanks(argc, argv, program, launch.thread_multiple, options->communicator,
                    [&](Communicator& comm) { return run(*options, comm); });
}

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_OPTIONS_RANK_PROGRAM_H_
