// Command-line options of //tools:verify (kcoll-verify). Every bad value is an InvalidArgument naming the flag and the
// value.
#ifndef KCOLL_TOOLS_VERIFY_OPTIONS_H_
#define KCOLL_TOOLS_VERIFY_OPTIONS_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/names.h"
#include "base/transport_kind.h"
#include "base/types.h"
#include "collectives/options.h"

namespace kcoll {
namespace verify {

struct VerifyOptions {
  int ranks = 4;  // --ranks: the ranks mpirun starts when verify is started plainly
  bool ranks_given = false;
  std::string json_path;                  // --json: the matrix as JSON, written by rank 0
  std::vector<Collective> collectives;    // --collectives (default: every collective)
  std::vector<TransportKind> transports;  // --transports (default: every transport that can run here)
  std::vector<ExecBackend> execs;         // --exec (default: every execution space this Kokkos has)
  std::vector<Numerics> numerics;         // --numerics (default: fast, deterministic, exact)
  std::vector<DataType> types;            // --types (default: every type)
  // --counts: element counts per call (per rank or per peer where the collective counts so, as NCCL does).
  std::vector<size_t> counts{1, 7, 517, 9001};
  int ranks_per_node = 0;  // --ranks_per_node: emulated nodes (0: the nodes MPI reports)
  bool help = false;
};

absl::StatusOr<VerifyOptions> ParseVerifyOptions(const std::vector<std::string>& args);
std::string VerifyUsage(const std::string& program);

}  // namespace verify
}  // namespace kcoll

#endif  // KCOLL_TOOLS_VERIFY_OPTIONS_H_
