// The steps a benchmark run takes before its first case, in the order RunRanks (collective_bench.cc) takes them:
// the communicators, the machine's ideal busbw, the cost model for --model, the implementations and cases, the
// buffers, and the header of the report. Every step is collective over MPI_COMM_WORLD where it communicates, and
// fails alike on every rank; a failure's code is InvalidArgument where the command line is at fault (exit code 2)
// and another code where the run failed (exit code 1).
#ifndef KCOLL_BENCH_DRIVER_RUN_SETUP_H_
#define KCOLL_BENCH_DRIVER_RUN_SETUP_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/names.h"
#include "bench/driver/bench_case.h"
#include "bench/implementations/implementation.h"
#include "bench/options/options.h"
#include "bench/reports/results.h"
#include "collectives/communicator.h"

namespace kcoll {
namespace bench {

// The exit code of a setup step's failure: 2 for the command line (InvalidArgument), 1 otherwise.
int ExitCodeOf(const absl::Status& status);

// A communicator whose kcoll rows run beside the plain ones, named '<algorithm> <label>'.
struct ExtraCommunicator {
  std::unique_ptr<Communicator> comm;
  std::string label;       // "transport=mpi", "timeout=30s", "numerics=deterministic"
  bool auto_only = false;  // runs the auto rows only (a numerics mode that named algorithms cannot honour)
};

struct Communicators {
  std::unique_ptr<Communicator> main;     // the first --transport; without a timeout under --with_timeout
  std::vector<ExtraCommunicator> extras;  // every further --transport, then --with_timeout's
};

// The communicators the options ask for.
absl::StatusOr<Communicators> MakeCommunicators(const BenchOptions& options);

// The machine's ideal busbw: from the profile (--profile, --calibrate), else --intra_bw / --inter_bw, else on one node
// the copy bandwidth measured now.
struct IdealBandwidth {
  double intra_gbps = 0, inter_gbps = 0;
  std::optional<double> busbw_gbps;
  double latency_floor_s = 0;  // one node: the latency probe's time per exchange (0: not measured)
  std::string note;            // where it comes from, for the report's header
};
absl::StatusOr<IdealBandwidth> ComputeIdealBandwidth(const BenchOptions& options, const Topology& topology,
                                                     const std::string& calibrate_summary);

// --model: the communicator's own cost model (the one auto chooses with) and the link probe, into `ctx`; returns the
// report's note on the model.
absl::StatusOr<std::string> SetUpModel(BenchContext& ctx, Communicator& comm);

// The implementations of every collective (peers first, so that kcoll rows can show their ratio to MPI) and a case
// per (implementation, type, op, root, size, in place). Notes say what was skipped and why ("all_reduce: ...").
void AddImplementationsAndCases(BenchContext& ctx, const std::vector<Collective>& collectives,
                                Communicators& communicators, const std::vector<size_t>& sizes,
                                std::vector<std::string>* notes);

// The largest buffers the cases need, plain and (for rows on registered buffers) from the communicator.
absl::Status ReserveBuffers(BenchContext& ctx, Communicator& comm);

// The report's header. Collective: rank 0 gathers every rank's host and pid.
struct RunHeaderInputs {
  std::string program;
  std::vector<Collective> collectives;
  const Communicators* communicators = nullptr;
  IdealBandwidth ideal;
  std::string model_note;
  std::vector<std::string> args;
};
RunInfo MakeRunInfo(const BenchContext& ctx, const RunHeaderInputs& inputs);

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_DRIVER_RUN_SETUP_H_
