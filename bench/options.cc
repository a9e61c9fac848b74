#include "bench/options.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "bench/sizes.h"
#include "collectives/named_values.h"
#include "collectives/transport/timeout.h"
#include "collectives/transport/transport_kind.h"

namespace kcoll {
namespace bench {

const char* TimeAcrossRanksName(TimeAcrossRanks mode) {
  static constexpr NamedValue<TimeAcrossRanks> kNames[] = {{TimeAcrossRanks::kRank0, "rank 0"},
                                                           {TimeAcrossRanks::kAverage, "average"},
                                                           {TimeAcrossRanks::kMin, "min"},
                                                           {TimeAcrossRanks::kMax, "max"}};
  return NameIn(kNames, mode, "?").data();
}

namespace {

struct Flag {
  char letter;        // 0: long only
  const char* name;   // long name
  const char* value;  // value placeholder for the help; nullptr: takes no value
  const char* help;
};

constexpr Flag kFlags[] = {
    {'b', "minbytes", "SIZE", "smallest size (8, 1K, 128M; default 8)"},
    {'e', "maxbytes", "SIZE", "largest size (default 128M)"},
    {'f', "stepfactor", "N", "multiply the size by N each step (default 2)"},
    {'i', "stepbytes", "SIZE", "add SIZE each step instead of multiplying"},
    {'n', "iters", "N", "timed iterations per size (default 20)"},
    {'w', "warmup_iters", "N", "untimed iterations before timing (default 5)"},
    {'m', "agg_iters", "N", "operations per timed iteration (default 1)"},
    {'c', "check", "N", "checked calls per size: exact #wrong (default 1; 0 prints N/A)"},
    {'o', "op", "OP", "sum, prod, min, max, avg or all (default sum)"},
    {'d', "datatype", "TYPE", "int8 ... float64, bfloat16, half, float, double or all (default float)"},
    {'r', "root", "RANK", "root of rooted collectives, or all (default 0)"},
    {'a', "average", "MODE", "time across ranks: 0 rank 0, 1 average, 2 min, 3 max (default 3)"},
    {'T', "timeout", "SECONDS", "abort when one call takes longer (default 0: never)"},
    {'I', "per_iter_timing", "0|1", "per-iteration min/max/p99/cv% columns; per-rank times in the JSON"},
    {'J', "json", "FILE", "write nccl-tests' JSON (version 3) plus kcoll's fields"},
    {0, "algo", "LIST", "kcoll algorithms and peers: all (default), a name, or a comma list (ring,mpi,gloo,nccl,auto)"},
    {0, "exec", "SPACE", "Kokkos execution space of each rank: serial (default), openmp, or cuda (device buffers)"},
    {0, "ranks", "N", "ranks to launch under mpirun (default 2)"},
    {0, "ranks_per_node", "R", "emulate nodes of R consecutive ranks (sets KCOLL_RANKS_PER_NODE)"},
    {0, "intra_bw", "GB/s", "intra-node bandwidth per rank, for the ideal busbw and efficiency"},
    {0, "inter_bw", "GB/s", "inter-node bandwidth per node, for the ideal busbw on several nodes"},
    {0, "profile", "FILE", "calibration profile JSON (//bench:calibrate): ideal busbw, auto's choice, --model"},
    {0, "model", nullptr, "per kcoll row, the alpha-beta model's time and its error against the measured one"},
    {0, "calibrate", "FILE",
     "measure this machine's profile first (//bench:calibrate's sweep, in these ranks), save it to FILE and use it "
     "as --profile"},
    {0, "touch_input", "0|1",
     "1 (default): each rank rewrites its input before every timed iteration, untimed, as an application that "
     "just produced it; 0: the input stays as first written (nccl-tests)"},
    {0, "registered", nullptr,
     "add kcoll rows on registered buffers (Communicator::Allocate): `auto registered` and the zero-copy `direct`"},
    {0, "rounds", "N",
     "run the whole sweep N times (1 default, up to 100), the implementations of each size one after the other, "
     "each case pooling its iterations of every round: cases sample the same stretches of a drifting machine"},
    {0, "recalibrate", "N",
     "with --calibrate and --model: calibrate again, up to N times (default 0, up to 10), when the link probe finds "
     "the machine in a state no profile of the run describes; each round is priced with its state's profile, and "
     "auto chooses with it"},
    {0, "with_timeout", "D",
     "also run every kcoll row on a second communicator whose waits have this timeout (CommunicatorOptions::timeout: "
     "30s, 500ms), its rows named '<algorithm> timeout=D', beside the rows that wait without one: what the timeout's "
     "polling costs"},
    {0, "transport", "LIST",
     "kcoll's transports, first one for the plain rows: auto (default: shared memory on one node, else MPI), shm, "
     "mpi, nccl, or a comma list (shm,mpi); every other one runs every kcoll row again on a communicator of its own, "
     "its rows named '<algorithm> transport=T'"},
    {'h', "help", nullptr, "this help"},
};

const Flag* FindLong(absl::string_view name) {
  for (const Flag& f : kFlags) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

const Flag* FindShort(char letter) {
  for (const Flag& f : kFlags) {
    if (f.letter != 0 && f.letter == letter) return &f;
  }
  return nullptr;
}

std::string FlagName(const Flag& f) {
  return f.letter != 0 ? absl::StrCat("-", std::string(1, f.letter), "/--", f.name) : absl::StrCat("--", f.name);
}

absl::Status Bad(const Flag& f, absl::string_view value, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(FlagName(f), " '", value, "': ", why));
}

absl::StatusOr<int64_t> ParseInt(const Flag& f, absl::string_view value, int64_t min, int64_t max) {
  int64_t v = 0;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(value), &v)) return Bad(f, value, "not an integer");
  if (v < min || v > max) {
    return Bad(f, value,
               max == std::numeric_limits<int64_t>::max() ? absl::StrCat("must be >= ", min)
                                                          : absl::StrCat("must be in [", min, ", ", max, "]"));
  }
  return v;
}

absl::StatusOr<double> ParseGBps(const Flag& f, absl::string_view value) {
  double v = 0;
  if (!absl::SimpleAtod(absl::StripAsciiWhitespace(value), &v) || !std::isfinite(v)) {
    return Bad(f, value, "not a number of GB/s");
  }
  if (v <= 0) return Bad(f, value, "must be > 0 GB/s");
  return v;
}

absl::Status ParseAlgos(const Flag& f, absl::string_view value, const ParseContext& context, AlgoSelection* out) {
  AlgoSelection sel;
  sel.all = false;
  std::vector<absl::string_view> items = absl::StrSplit(value, ',', absl::SkipWhitespace());
  if (items.empty()) return Bad(f, value, "empty list");
  for (absl::string_view raw : items) {
    const std::string item = absl::AsciiStrToLower(absl::StripAsciiWhitespace(raw));
    if (item == "all") {
      sel.all = true;
    } else if (item == "mpi") {
      sel.mpi = true;
    } else if (item == "gloo") {
      if (!context.gloo_available) {
        return Bad(f, value, "this build has no Gloo (install libgloo-dev and rebuild; see bench/README.md)");
      }
      sel.gloo = true;
    } else if (item == "nccl") {
      if (!context.nccl_available) {
        return Bad(f, value, "this build has no NCCL (install NCCL and the CUDA toolkit, then rebuild)");
      }
      sel.nccl = true;
    } else {
      auto algorithm = ParseAlgorithm(item);
      if (!algorithm.ok()) {
        return Bad(f, value, absl::StrCat(algorithm.status().message(), "; or all, mpi, gloo, nccl"));
      }
      sel.algorithms.push_back(*algorithm);
    }
  }
  *out = sel;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<BenchOptions> ParseBenchOptions(const std::vector<std::string>& args, const ParseContext& context) {
  BenchOptions o;
  bool factor_given = false, step_given = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (absl::StartsWith(arg, "--benchmark_") || absl::StartsWith(arg, "--kokkos-")) continue;
    const Flag* flag = nullptr;
    std::optional<std::string> inline_value;
    if (absl::StartsWith(arg, "--")) {
      absl::string_view body = absl::string_view(arg).substr(2);
      const size_t eq = body.find('=');
      flag = FindLong(body.substr(0, eq));
      if (flag == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat("unknown option '", arg, "' (see --help)"));
      }
      if (eq != absl::string_view::npos) inline_value = std::string(body.substr(eq + 1));
    } else if (arg.size() >= 2 && arg[0] == '-' && !absl::ascii_isdigit(arg[1])) {
      flag = FindShort(arg[1]);
      if (flag == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat("unknown option '", arg, "' (see --help)"));
      }
      if (arg.size() > 2) inline_value = arg.substr(2);
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unexpected argument '", arg, "' (options start with -)"));
    }
    std::string value;
    if (flag->value == nullptr) {
      if (inline_value.has_value()) return Bad(*flag, *inline_value, "takes no value");
    } else if (inline_value.has_value()) {
      value = *inline_value;
    } else {
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(absl::StrCat(FlagName(*flag), ": missing value (", flag->value, ")"));
      }
      value = args[++i];
    }

    const std::string name = flag->name;
    if (name == "minbytes" || name == "maxbytes" || name == "stepbytes") {
      auto bytes = ParseByteSize(value);
      if (!bytes.ok()) return Bad(*flag, value, bytes.status().message());
      if (name == "minbytes") o.min_bytes = *bytes;
      if (name == "maxbytes") o.max_bytes = *bytes;
      if (name == "stepbytes") {
        if (*bytes == 0) return Bad(*flag, value, "the step must be at least 1 byte");
        o.step_bytes = *bytes;
        step_given = true;
      }
    } else if (name == "stepfactor") {
      auto v = ParseInt(*flag, value, 2, 1 << 20);
      if (!v.ok()) return v.status();
      o.step_factor = static_cast<size_t>(*v);
      factor_given = true;
    } else if (name == "iters") {
      auto v = ParseInt(*flag, value, 1, 1 << 30);
      if (!v.ok()) return v.status();
      o.iters = static_cast<int>(*v);
    } else if (name == "warmup_iters") {
      auto v = ParseInt(*flag, value, 0, 1 << 30);
      if (!v.ok()) return v.status();
      o.warmup_iters = static_cast<int>(*v);
    } else if (name == "agg_iters") {
      auto v = ParseInt(*flag, value, 1, 1 << 20);
      if (!v.ok()) return v.status();
      o.agg_iters = static_cast<int>(*v);
    } else if (name == "check") {
      auto v = ParseInt(*flag, value, 0, 1000);
      if (!v.ok()) return v.status();
      o.check = static_cast<int>(*v);
    } else if (name == "op") {
      if (absl::AsciiStrToLower(value) == "all") {
        o.ops = AllReduceOps();
      } else {
        auto op = ParseReduceOp(value);
        if (!op.ok()) return Bad(*flag, value, absl::StrCat(op.status().message(), ", all"));
        o.ops = {*op};
      }
    } else if (name == "datatype") {
      if (absl::AsciiStrToLower(value) == "all") {
        o.types = AllDataTypes();
      } else {
        auto type = ParseDataType(value);
        if (!type.ok()) return Bad(*flag, value, absl::StrCat(type.status().message(), ", all"));
        o.types = {*type};
      }
    } else if (name == "root") {
      if (absl::AsciiStrToLower(value) == "all") {
        o.root.reset();
      } else {
        auto v = ParseInt(*flag, value, 0, std::numeric_limits<int>::max());
        if (!v.ok()) return Bad(*flag, value, "not a rank (an integer >= 0) or all");
        o.root = static_cast<int>(*v);
      }
    } else if (name == "average") {
      auto v = ParseInt(*flag, value, 0, 3);
      if (!v.ok()) return v.status();
      o.time_across = static_cast<TimeAcrossRanks>(*v);
    } else if (name == "timeout") {
      auto v = ParseInt(*flag, value, 0, 1 << 24);
      if (!v.ok()) return v.status();
      o.timeout_s = static_cast<int>(*v);
    } else if (name == "per_iter_timing") {
      auto v = ParseInt(*flag, value, 0, 1);
      if (!v.ok()) return v.status();
      o.per_iter_timing = *v == 1;
    } else if (name == "json") {
      if (value.empty()) return Bad(*flag, value, "empty file name");
      o.json_path = value;
    } else if (name == "algo") {
      absl::Status s = ParseAlgos(*flag, value, context, &o.algos);
      if (!s.ok()) return s;
    } else if (name == "exec") {
      const std::string lower = absl::AsciiStrToLower(value);
      bool found = false;
      for (const std::string& e : context.exec_available) found = found || e == lower;
      if (!found) {
        return Bad(*flag, value,
                   absl::StrCat("not an execution space of this build (available: ",
                                absl::StrJoin(context.exec_available, ", "), ")"));
      }
      o.exec = lower;
    } else if (name == "ranks") {
      auto v = ParseInt(*flag, value, 1, 4096);
      if (!v.ok()) return v.status();
      o.ranks = static_cast<int>(*v);
      o.ranks_given = true;
    } else if (name == "ranks_per_node") {
      auto v = ParseInt(*flag, value, 1, 4096);
      if (!v.ok()) return v.status();
      o.ranks_per_node = static_cast<int>(*v);
    } else if (name == "intra_bw" || name == "inter_bw") {
      auto v = ParseGBps(*flag, value);
      if (!v.ok()) return v.status();
      (name == "intra_bw" ? o.intra_bw_gbps : o.inter_bw_gbps) = *v;
    } else if (name == "profile") {
      if (value.empty()) return Bad(*flag, value, "empty file name");
      o.profile_path = value;
    } else if (name == "model") {
      o.model = true;
    } else if (name == "registered") {
      o.registered = true;
    } else if (name == "calibrate") {
      if (value.empty()) return Bad(*flag, value, "empty file name");
      o.calibrate_path = value;
    } else if (name == "touch_input") {
      auto v = ParseInt(*flag, value, 0, 1);
      if (!v.ok()) return v.status();
      o.touch_input = *v == 1;
    } else if (name == "rounds") {
      auto v = ParseInt(*flag, value, 1, 100);
      if (!v.ok()) return v.status();
      o.rounds = *v;
    } else if (name == "with_timeout") {
      auto v = ParseTimeout(value, FlagName(*flag));
      if (!v.ok()) return v.status();
      if (*v == absl::InfiniteDuration()) return Bad(*flag, value, "not a timeout (0 is no limit: leave the flag out)");
      o.with_timeout = *v;
    } else if (name == "transport") {
      o.transports.clear();
      for (absl::string_view item : absl::StrSplit(value, ',')) {
        const std::string lower = absl::AsciiStrToLower(absl::StripAsciiWhitespace(item));
        if (lower != "auto" && !ParseTransportKind(lower).ok()) {
          return Bad(*flag, value, absl::StrCat("'", item, "' is not a transport (auto, mpi, shm, nccl)"));
        }
        if (std::find(o.transports.begin(), o.transports.end(), lower) != o.transports.end()) {
          return Bad(*flag, value, absl::StrCat("'", item, "' is listed twice"));
        }
        o.transports.push_back(lower);
      }
    } else if (name == "recalibrate") {
      auto v = ParseInt(*flag, value, 0, 10);
      if (!v.ok()) return v.status();
      o.recalibrate = static_cast<int>(*v);
    } else if (name == "help") {
      o.help = true;
    }
  }
  if (factor_given && step_given) {
    return absl::InvalidArgumentError("-f/--stepfactor and -i/--stepbytes both given: choose one way to step");
  }
  if (step_given) o.step_factor = 1;
  if (o.min_bytes > o.max_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("-b/--minbytes ", o.min_bytes, " is larger than -e/--maxbytes ", o.max_bytes));
  }
  if (o.step_factor > 1 && o.min_bytes == 0 && o.max_bytes > 0) {
    return absl::InvalidArgumentError(
        "-b/--minbytes '0' with a step factor never grows: start at 1 or more, or use -i");
  }
  if (!o.profile_path.empty() && (o.intra_bw_gbps > 0 || o.inter_bw_gbps > 0)) {
    return absl::InvalidArgumentError(
        "--profile and --intra_bw/--inter_bw both given: choose one source of bandwidths");
  }
  if (!o.calibrate_path.empty() && (!o.profile_path.empty() || o.intra_bw_gbps > 0 || o.inter_bw_gbps > 0)) {
    return absl::InvalidArgumentError(
        "--calibrate and --profile or --intra_bw/--inter_bw both given: choose one source of bandwidths");
  }
  if (o.recalibrate > 0 && (o.calibrate_path.empty() || !o.model)) {
    return absl::InvalidArgumentError(absl::StrCat("--recalibrate '", o.recalibrate,
                                                   "' needs --calibrate FILE and --model: it measures more profiles "
                                                   "for the model when the machine changes"));
  }
  if (o.ranks_per_node > 0 && o.ranks_given && o.ranks % o.ranks_per_node != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--ranks_per_node '", o.ranks_per_node, "' does not divide --ranks ", o.ranks));
  }
  if (o.root.has_value() && o.ranks_given && *o.root >= o.ranks) {
    return absl::InvalidArgumentError(absl::StrCat("-r/--root '", *o.root, "': must be < --ranks ", o.ranks));
  }
  return o;
}

absl::Status ValidateForRanks(const BenchOptions& o, int nranks, bool launched_by_us) {
  if (o.ranks_given && !launched_by_us && o.ranks != nranks) {
    return absl::InvalidArgumentError(absl::StrCat("--ranks '", o.ranks, "' but mpirun started ", nranks,
                                                   " ranks: drop --ranks when launching with mpirun yourself"));
  }
  if (o.root.has_value() && *o.root >= nranks) {
    return absl::InvalidArgumentError(
        absl::StrCat("-r/--root '", *o.root, "': must be < the number of ranks ", nranks));
  }
  if (o.ranks_per_node > 0 && nranks % o.ranks_per_node != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--ranks_per_node '", o.ranks_per_node, "' does not divide the number of ranks ", nranks));
  }
  return absl::OkStatus();
}

std::string Usage(absl::string_view program, const ParseContext& context) {
  std::string out = absl::StrCat(
      "Usage: ", program, " [options] [--benchmark_filter=REGEX] [--benchmark_format=console|json|csv] ...\n",
      "Runs itself as --ranks MPI ranks under mpirun (or use mpirun -np N ", program, " directly).\n\nOptions:\n");
  for (const Flag& f : kFlags) {
    std::string names = f.letter != 0 ? absl::StrCat("  -", std::string(1, f.letter), ", --", f.name)
                                      : absl::StrCat("      --", f.name);
    if (f.value != nullptr) absl::StrAppend(&names, " ", f.value);
    if (names.size() < 32) names.resize(32, ' ');
    absl::StrAppend(&out, names, " ", f.help, "\n");
  }
  absl::StrAppend(&out, "\nGloo peer: ", context.gloo_available ? "built in" : "not built (libgloo-dev absent)",
                  ". NCCL peer: ", context.nccl_available ? "built in (with --exec cuda)" : "not built (no NCCL)",
                  ". Execution spaces: ", absl::StrJoin(context.exec_available, ", "), ".\n");
  return out;
}

}  // namespace bench
}  // namespace kcoll
