#include "tools/verify/options.h"

#include <functional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace kcoll {
namespace verify {
namespace {

constexpr size_t kMaxCount = size_t{1} << 24;

absl::Status BadValue(const std::string& flag, const std::string& value, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat(flag, ": '", value, "' ", why));
}

// A comma-separated list of names, each parsed by `parse`; "all" leaves `out` empty (the default: everything).
template <class T>
absl::Status ParseList(const std::string& flag, const std::string& value,
                       const std::function<absl::StatusOr<T>(absl::string_view)>& parse, std::vector<T>* out) {
  out->clear();
  if (value == "all") return absl::OkStatus();
  for (absl::string_view item : absl::StrSplit(value, ',')) {
    absl::StatusOr<T> parsed = parse(item);
    if (!parsed.ok()) return absl::InvalidArgumentError(absl::StrCat(flag, ": ", parsed.status().message()));
    out->push_back(*parsed);
  }
  if (out->empty()) return BadValue(flag, value, "names nothing");
  return absl::OkStatus();
}

absl::Status ParseCounts(const std::string& value, std::vector<size_t>* out) {
  out->clear();
  for (absl::string_view item : absl::StrSplit(value, ',')) {
    uint64_t count = 0;
    if (!absl::SimpleAtoi(item, &count) || count < 1 || count > kMaxCount) {
      return BadValue("--counts", std::string(item), absl::StrCat("is not a count in 1..", kMaxCount));
    }
    out->push_back(count);
  }
  return absl::OkStatus();
}

absl::Status ParseInt(const std::string& flag, const std::string& value, int lo, int hi, int* out) {
  if (!absl::SimpleAtoi(value, out) || *out < lo || *out > hi) {
    return BadValue(flag, value, absl::StrCat("is not an integer in ", lo, "..", hi));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<VerifyOptions> ParseVerifyOptions(const std::vector<std::string>& args) {
  VerifyOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i], value;
    if (flag == "-h" || flag == "--help") {
      o.help = true;
      continue;
    }
    if (absl::StartsWith(flag, "--kokkos-")) continue;  // Kokkos' own
    if (!absl::StartsWith(flag, "--"))
      return absl::InvalidArgumentError(absl::StrCat("unexpected argument '", flag, "'"));
    if (const size_t eq = flag.find('='); eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return absl::InvalidArgumentError(absl::StrCat(flag, " needs a value"));
    }
    absl::Status status;
    if (flag == "--ranks") {
      status = ParseInt(flag, value, 1, 4096, &o.ranks);
      o.ranks_given = true;
    } else if (flag == "--json") {
      if (value.empty()) return BadValue(flag, value, "is not a file name");
      o.json_path = value;
    } else if (flag == "--collectives") {
      status = ParseList<Collective>(flag, value, ParseCollective, &o.collectives);
    } else if (flag == "--transports") {
      status = ParseList<TransportKind>(flag, value, ParseTransportKind, &o.transports);
    } else if (flag == "--exec") {
      status = ParseList<ExecBackend>(flag, value, ParseExecBackend, &o.execs);
    } else if (flag == "--numerics") {
      status = ParseList<Numerics>(flag, value, ParseNumerics, &o.numerics);
    } else if (flag == "--types") {
      status = ParseList<DataType>(flag, value, ParseDataType, &o.types);
    } else if (flag == "--counts") {
      status = ParseCounts(value, &o.counts);
    } else if (flag == "--ranks_per_node") {
      status = ParseInt(flag, value, 0, 4096, &o.ranks_per_node);
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown option '", flag, "' (see --help)"));
    }
    if (!status.ok()) return status;
  }
  return o;
}

std::string VerifyUsage(const std::string& program) {
  return absl::StrCat(
      "usage: ", program, " [options]\n",
      "Runs every collective x algorithm on every transport x execution space x numerics mode this machine has, on\n"
      "exact data (bit for bit against a local reference and the vendor MPI) and rounding-sensitive data (fast within\n"
      "its error bound; deterministic and exact bit for bit), and prints the matrix and 'N passed, M failed'.\n"
      "Exit status: 0 when every cell passed, 1 when one failed, 2 for a bad command line.\n\n"
      "  --ranks N            ranks to start under mpirun (default 4; ignored when started by mpirun)\n"
      "  --json FILE          also write the matrix as JSON\n"
      "  --collectives LIST   all_reduce,broadcast,... or all (default all)\n"
      "  --transports LIST    shm,mpi,nccl,cuda_ipc or all (default: those that run here)\n"
      "  --exec LIST          serial,openmp,cuda or all (default: those this Kokkos has)\n"
      "  --numerics LIST      fast,deterministic,exact or all (default all)\n"
      "  --types LIST         int8,...,float64 or all (default all)\n"
      "  --counts LIST        elements per call (default 1,7,517,9001)\n"
      "  --ranks_per_node N   emulated nodes of N consecutive ranks (default: the nodes MPI reports)\n");
}

}  // namespace verify
}  // namespace kcoll
