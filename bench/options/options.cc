#include "bench/options/options.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/named_values.h"
#include "base/transport_kind.h"
#include "bench/options/sizes.h"
#include "collectives/transport/timeout.h"

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
    {0, "algo", "LIST",
     "kcoll algorithms and peers: all (default: every algorithm, auto, and the MPI and NCCL peers; Gloo only when "
     "named), a name, or a comma list (ring,mpi,gloo,nccl,auto; all,gloo); floor: the latency floor's exchange as a "
     "row, an AllReduce of one cache line timed like the others (ranks of one host); copy: the bytes an AllReduce "
     "moves between ranks, read once from the peers' buffers by single copies, as a row (ranks of one host)"},
    {0, "exec", "SPACE", "Kokkos execution space of each rank: serial (default), openmp, or cuda (device buffers)"},
    {0, "ranks", "N", "ranks to launch under mpirun (default 2)"},
    {0, "ranks_per_node", "R", "emulate nodes of R consecutive ranks (sets KCOLL_RANKS_PER_NODE)"},
    {0, "hosts", "H",
     "run the ranks on H real hosts made on this machine by tools/cluster.sh (network namespaces, shared memory within "
     "a host, Open MPI over TCP between; needs root), --ranks spread evenly over them"},
    {0, "intra_bw", "GB/s", "intra-node bandwidth per rank, for the ideal busbw and efficiency"},
    {0, "inter_bw", "GB/s", "inter-node bandwidth per node, for the ideal busbw on several nodes"},
    {0, "profile", "FILE", "calibration profile JSON (//bench:calibrate): ideal busbw, auto's choice, --model"},
    {0, "model", nullptr, "per kcoll row, the alpha-beta model's time and its error against the measured one"},
    {0, "calibrate", "FILE",
     "measure this machine's profile first (//bench:calibrate's sweep, in these ranks), save it to FILE and use it "
     "as --profile"},
    {0, "calibrate_ms", "MS",
     "timed milliseconds per size of --calibrate's sweep (default 200, as //bench:calibrate; 1 to 10000): less "
     "measures faster and noisier"},
    {0, "calibrate_max", "SIZE",
     "largest message and buffer of --calibrate's sweep (default 64M, as //bench:calibrate; at least 64K): the "
     "profile's curves end there"},
    {0, "touch_input", "0|1",
     "1 (default): each rank rewrites its input before every timed iteration, untimed, as an application that "
     "just produced it; 0: the input stays as first written (nccl-tests)"},
    {0, "nonblocking", "P",
     "time issue-compute-wait: each iteration starts the nonblocking call (IAllReduce, MPI_Iallreduce, ...), computes "
     "for P% of the blocking call's time (1 to 10000; 0, the default: blocking calls), then waits; time is what the "
     "call left exposed (the iteration minus the computation alone)"},
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
     "mpi, nccl, cuda_ipc, or a comma list (shm,mpi); every other one runs every kcoll row again on a communicator of "
     "its own, "
     "its rows named '<algorithm> transport=T'"},
    {0, "numerics", "LIST",
     "numerics modes of kcoll's reductions (docs/numerics.md), first one for the plain rows: fast (default), "
     "deterministic, exact, or a comma list (fast,deterministic,exact); every other one runs the auto rows again on a "
     "communicator "
     "of its own, named 'auto numerics=M' (a named algorithm cannot honour deterministic or exact); several modes "
     "turn --fingerprint on"},
    {0, "fingerprint", "0|1",
     "a column 'result': FNV-1a of every rank's result of one more call on rounding-sensitive data (floating-point "
     "reductions; out of place), so rows that produced the same bits show the same value"},
    {0, "start", "free|aligned",
     "when each rank starts a timed iteration: free (default) as it leaves the previous iteration's agreement on the "
     "times (nccl-tests); aligned: every rank at one agreed instant of rank 0's clock (offsets measured by ping-pong "
     "before each round), so the ranks' spread in leaving that agreement (tens of us between hosts) stays out of the "
     "time"},
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
    } else if (item == "floor") {
      sel.floor = true;
    } else if (item == "copy") {
      sel.copy = true;
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
        return Bad(f, value, absl::StrCat(algorithm.status().message(), "; or all, mpi, gloo, nccl, floor, copy"));
      }
      sel.algorithms.push_back(*algorithm);
    }
  }
  *out = sel;
  return absl::OkStatus();
}

// The integer options: their bounds and where their value goes.
struct IntegerFlag {
  const char* name;
  int64_t min, max;
  void (*set)(BenchOptions& o, int64_t v);
};

const IntegerFlag kIntegerFlags[] = {
    {"stepfactor", 2, 1 << 20, [](BenchOptions& o, int64_t v) { o.step_factor = static_cast<size_t>(v); }},
    {"iters", 1, 1 << 30, [](BenchOptions& o, int64_t v) { o.iters = static_cast<int>(v); }},
    {"warmup_iters", 0, 1 << 30, [](BenchOptions& o, int64_t v) { o.warmup_iters = static_cast<int>(v); }},
    {"agg_iters", 1, 1 << 20, [](BenchOptions& o, int64_t v) { o.agg_iters = static_cast<int>(v); }},
    {"check", 0, 1000, [](BenchOptions& o, int64_t v) { o.check = static_cast<int>(v); }},
    {"average", 0, 3, [](BenchOptions& o, int64_t v) { o.time_across = static_cast<TimeAcrossRanks>(v); }},
    {"timeout", 0, 1 << 24, [](BenchOptions& o, int64_t v) { o.timeout_s = static_cast<int>(v); }},
    {"per_iter_timing", 0, 1, [](BenchOptions& o, int64_t v) { o.per_iter_timing = v == 1; }},
    {"fingerprint", 0, 1, [](BenchOptions& o, int64_t v) { o.fingerprint = v == 1; }},
    {"ranks", 1, 4096,
     [](BenchOptions& o, int64_t v) {
       o.ranks = static_cast<int>(v);
       o.ranks_given = true;
     }},
    {"ranks_per_node", 1, 4096, [](BenchOptions& o, int64_t v) { o.ranks_per_node = static_cast<int>(v); }},
    {"hosts", 2, 8, [](BenchOptions& o, int64_t v) { o.hosts = static_cast<int>(v); }},
    {"touch_input", 0, 1, [](BenchOptions& o, int64_t v) { o.touch_input = v == 1; }},
    {"nonblocking", 0, 10000, [](BenchOptions& o, int64_t v) { o.nonblocking_pct = static_cast<int>(v); }},
    {"rounds", 1, 100, [](BenchOptions& o, int64_t v) { o.rounds = static_cast<int>(v); }},
    {"recalibrate", 0, 10, [](BenchOptions& o, int64_t v) { o.recalibrate = static_cast<int>(v); }},
    {"calibrate_ms", 1, 10000, [](BenchOptions& o, int64_t v) { o.calibrate_ms = static_cast<int>(v); }},
};

// The options that name a file, and the switches (options without a value).
const std::pair<const char*, std::string BenchOptions::*> kFileFlags[] = {{"json", &BenchOptions::json_path},
                                                                          {"profile", &BenchOptions::profile_path},
                                                                          {"calibrate", &BenchOptions::calibrate_path}};
const std::pair<const char*, bool BenchOptions::*> kSwitches[] = {
    {"model", &BenchOptions::model}, {"registered", &BenchOptions::registered}, {"help", &BenchOptions::help}};

// The option at args[i] and its value (inline or the next argument, which `i` then moves past).
absl::StatusOr<std::pair<const Flag*, std::string>> ReadFlag(const std::vector<std::string>& args, size_t& i) {
  const std::string& arg = args[i];
  const Flag* flag = nullptr;
  std::optional<std::string> inline_value;
  if (absl::StartsWith(arg, "--")) {
    absl::string_view body = absl::string_view(arg).substr(2);
    const size_t eq = body.find('=');
    flag = FindLong(body.substr(0, eq));
    if (eq != absl::string_view::npos) inline_value = std::string(body.substr(eq + 1));
  } else if (arg.size() >= 2 && arg[0] == '-' && !absl::ascii_isdigit(arg[1])) {
    flag = FindShort(arg[1]);
    if (arg.size() > 2) inline_value = arg.substr(2);
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unexpected argument '", arg, "' (options start with -)"));
  }
  if (flag == nullptr) return absl::InvalidArgumentError(absl::StrCat("unknown option '", arg, "' (see --help)"));
  if (flag->value == nullptr) {
    if (inline_value.has_value()) return Bad(*flag, *inline_value, "takes no value");
    return std::make_pair(flag, std::string());
  }
  if (inline_value.has_value()) return std::make_pair(flag, *inline_value);
  if (i + 1 >= args.size()) {
    return absl::InvalidArgumentError(absl::StrCat(FlagName(*flag), ": missing value (", flag->value, ")"));
  }
  return std::make_pair(flag, args[++i]);
}

// `value` of an option that takes one value, or `all`: `all` when it says so, else what `parse` makes of it.
template <typename T, typename Parse>
absl::Status ParseOneOrAll(const Flag& flag, const std::string& value, Parse parse, std::vector<T>& out,
                           const std::vector<T>& all) {
  if (absl::AsciiStrToLower(value) == "all") {
    out = all;
    return absl::OkStatus();
  }
  auto parsed = parse(value);
  if (!parsed.ok()) return Bad(flag, value, absl::StrCat(parsed.status().message(), ", all"));
  out = {*parsed};
  return absl::OkStatus();
}

absl::Status ParseTransports(const Flag& flag, const std::string& value, BenchOptions& o) {
  o.transports.clear();
  for (absl::string_view item : absl::StrSplit(value, ',')) {
    const std::string lower = absl::AsciiStrToLower(absl::StripAsciiWhitespace(item));
    if (lower != "auto" && !ParseTransportKind(lower).ok()) {
      return Bad(flag, value, absl::StrCat("'", item, "' is not a transport (auto, mpi, shm, nccl, cuda_ipc)"));
    }
    if (std::find(o.transports.begin(), o.transports.end(), lower) != o.transports.end()) {
      return Bad(flag, value, absl::StrCat("'", item, "' is listed twice"));
    }
    o.transports.push_back(lower);
  }
  return absl::OkStatus();
}

absl::Status ParseNumericsList(const Flag& flag, const std::string& value, BenchOptions& o) {
  o.numerics.clear();
  for (absl::string_view item : absl::StrSplit(value, ',')) {
    absl::StatusOr<Numerics> parsed = ParseNumerics(absl::StripAsciiWhitespace(item));
    if (!parsed.ok()) return Bad(flag, value, parsed.status().message());
    if (std::find(o.numerics.begin(), o.numerics.end(), *parsed) != o.numerics.end()) {
      return Bad(flag, value, absl::StrCat("'", item, "' is listed twice"));
    }
    o.numerics.push_back(*parsed);
    if (o.numerics.size() > 1) o.fingerprint = true;
  }
  return absl::OkStatus();
}

// Applies one option to `o`: the tables above first, then the options with a parser of their own.
absl::Status ApplyFlag(const Flag& flag, const std::string& value, const ParseContext& context, BenchOptions& o) {
  const std::string name = flag.name;
  for (const IntegerFlag& f : kIntegerFlags) {
    if (name != f.name) continue;
    auto v = ParseInt(flag, value, f.min, f.max);
    if (!v.ok()) return v.status();
    f.set(o, *v);
    return absl::OkStatus();
  }
  for (const auto& [file_flag, field] : kFileFlags) {
    if (name != file_flag) continue;
    if (value.empty()) return Bad(flag, value, "empty file name");
    o.*field = value;
    return absl::OkStatus();
  }
  for (const auto& [switch_flag, field] : kSwitches) {
    if (name != switch_flag) continue;
    o.*field = true;
    return absl::OkStatus();
  }
  if (name == "minbytes" || name == "maxbytes" || name == "stepbytes" || name == "calibrate_max") {
    auto bytes = ParseByteSize(value);
    if (!bytes.ok()) return Bad(flag, value, bytes.status().message());
    if (name == "stepbytes" && *bytes == 0) return Bad(flag, value, "the step must be at least 1 byte");
    if (name == "calibrate_max" && *bytes < (size_t{64} << 10)) return Bad(flag, value, "must be at least 64K");
    (name == "minbytes"        ? o.min_bytes
     : name == "maxbytes"      ? o.max_bytes
     : name == "calibrate_max" ? o.calibrate_max_bytes
                               : o.step_bytes) = *bytes;
  } else if (name == "op") {
    return ParseOneOrAll(flag, value, ParseReduceOp, o.ops, AllReduceOps());
  } else if (name == "datatype") {
    return ParseOneOrAll(flag, value, ParseDataType, o.types, AllDataTypes());
  } else if (name == "root") {
    if (absl::AsciiStrToLower(value) == "all") {
      o.root.reset();
      return absl::OkStatus();
    }
    auto v = ParseInt(flag, value, 0, std::numeric_limits<int>::max());
    if (!v.ok()) return Bad(flag, value, "not a rank (an integer >= 0) or all");
    o.root = static_cast<int>(*v);
  } else if (name == "algo") {
    return ParseAlgos(flag, value, context, &o.algos);
  } else if (name == "exec") {
    const std::string lower = absl::AsciiStrToLower(value);
    if (std::find(context.exec_available.begin(), context.exec_available.end(), lower) ==
        context.exec_available.end()) {
      return Bad(flag, value,
                 absl::StrCat("not an execution space of this build (available: ",
                              absl::StrJoin(context.exec_available, ", "), ")"));
    }
    o.exec = lower;
  } else if (name == "intra_bw" || name == "inter_bw") {
    auto v = ParseGBps(flag, value);
    if (!v.ok()) return v.status();
    (name == "intra_bw" ? o.intra_bw_gbps : o.inter_bw_gbps) = *v;
  } else if (name == "with_timeout") {
    auto v = ParseTimeout(value, FlagName(flag));
    if (!v.ok()) return v.status();
    if (*v == absl::InfiniteDuration()) return Bad(flag, value, "not a timeout (0 is no limit: leave the flag out)");
    o.with_timeout = *v;
  } else if (name == "transport") {
    return ParseTransports(flag, value, o);
  } else if (name == "numerics") {
    return ParseNumericsList(flag, value, o);
  } else if (name == "start") {
    const std::string lower = absl::AsciiStrToLower(absl::StripAsciiWhitespace(value));
    if (lower != "free" && lower != "aligned") return Bad(flag, value, "not a start (free, aligned)");
    o.aligned_start = lower == "aligned";
  }
  return absl::OkStatus();
}

// The checks that involve several options.
absl::Status CheckCombination(const BenchOptions& o, bool factor_given, bool step_given) {
  if (factor_given && step_given) {
    return absl::InvalidArgumentError("-f/--stepfactor and -i/--stepbytes both given: choose one way to step");
  }
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
  if ((o.calibrate_ms != BenchOptions().calibrate_ms || o.calibrate_max_bytes != BenchOptions().calibrate_max_bytes) &&
      o.calibrate_path.empty()) {
    return absl::InvalidArgumentError("--calibrate_ms and --calibrate_max need --calibrate FILE: they set its sweep");
  }
  if (o.nonblocking_pct > 0 && o.model) {
    return absl::InvalidArgumentError(
        "--nonblocking and --model both given: the model prices blocking calls, not what a computation leaves exposed");
  }
  if (o.recalibrate > 0 && (o.calibrate_path.empty() || !o.model)) {
    return absl::InvalidArgumentError(absl::StrCat("--recalibrate '", o.recalibrate,
                                                   "' needs --calibrate FILE and --model: it measures more profiles "
                                                   "for the model when the machine changes"));
  }
  if (o.hosts > 0 && o.ranks_per_node > 0) {
    return absl::InvalidArgumentError(absl::StrCat("--hosts '", o.hosts, "' and --ranks_per_node '", o.ranks_per_node,
                                                   "' both given: real hosts or emulated nodes, not both"));
  }
  if (o.hosts > 0 && (o.ranks % o.hosts != 0 || o.ranks / o.hosts > 8)) {
    return absl::InvalidArgumentError(absl::StrCat("--hosts '", o.hosts, "' with --ranks ", o.ranks,
                                                   ": the ranks must split evenly, 1 to 8 per host"));
  }
  if (o.ranks_per_node > 0 && o.ranks_given && o.ranks % o.ranks_per_node != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--ranks_per_node '", o.ranks_per_node, "' does not divide --ranks ", o.ranks));
  }
  if (o.root.has_value() && o.ranks_given && *o.root >= o.ranks) {
    return absl::InvalidArgumentError(absl::StrCat("-r/--root '", *o.root, "': must be < --ranks ", o.ranks));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<BenchOptions> ParseBenchOptions(const std::vector<std::string>& args, const ParseContext& context) {
  BenchOptions o;
  bool factor_given = false, step_given = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (absl::StartsWith(args[i], "--benchmark_") || absl::StartsWith(args[i], "--kokkos-")) continue;
    auto flag = ReadFlag(args, i);
    if (!flag.ok()) return flag.status();
    const auto& [f, value] = *flag;
    if (absl::Status s = ApplyFlag(*f, value, context, o); !s.ok()) return s;
    factor_given = factor_given || std::string(f->name) == "stepfactor";
    step_given = step_given || std::string(f->name) == "stepbytes";
  }
  if (step_given && !factor_given) o.step_factor = 1;
  if (absl::Status s = CheckCombination(o, factor_given, step_given); !s.ok()) return s;
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
