// Measures this machine's profile (alpha, beta per link class, gamma, memcpy bandwidth) for the cost model and the
// communicator's automatic algorithm choice, prints a report and saves the profile as JSON (models/profile_json.h).
//
//   bazel run -c opt //bench:calibrate -- [--ranks=N] [--ranks_per_node=R] [--out=profile.json]
//   mpirun -np N bazel-bin/bench/calibrate [--ranks_per_node=R] [--out=...]     (already under mpirun)
//   KCOLL_PROFILE=profile.json <your program>                                   (use it)
//   bazel run -c opt //bench:calibrate -- --ranks=N --save      (and every later job of N ranks here uses it)
//
// See calibration/calibrate.h for what is measured and how.
#include <mpi.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/env.h"
#include "base/flags_only.h"
#include "base/status_macros.h"
#include "base/topology.h"
#include "bench/calibration/calibrate_in_run.h"
#include "bench/calibration/calibrate_launch.h"
#include "bench/calibration/vendor_sweep.h"
#include "bench/options/launcher.h"
#include "calibration/calibrate.h"
#include "calibration/profile.h"
#include "calibration/report.h"
#include "calibration/vendor_sizes.h"
#include "choice/machine_profiles.h"
#include "collectives/kernels/backend.h"
#include "collectives/topology/discover.h"
#include "kcoll_mpi_paths.h"
#include "models/profile_json.h"

ABSL_FLAG(int, ranks, 0, "ranks to launch (0: one per core, at least 2); under mpirun, must match the job or be 0");
ABSL_FLAG(int, ranks_per_node, 0,
          "emulate nodes of this many consecutive ranks (0: $KCOLL_RANKS_PER_NODE, else the nodes MPI reports)");
ABSL_FLAG(std::string, out, "kcoll_profile.json",
          "where to save the profile (relative paths are taken from where bazel run was started)");
ABSL_FLAG(bool, save, false,
          "also save the profile for this machine and this shape of job (choice/machine_profiles.h): communicators "
          "of the same shape given no profile then price with it");
ABSL_FLAG(double, min_bytes, 8, "smallest ping-pong message");
ABSL_FLAG(double, max_bytes, 64 << 20, "largest ping-pong message and local buffer");
ABSL_FLAG(double, step_factor, 4, "size multiplier of the sweeps");
ABSL_FLAG(double, min_local_bytes, 4096, "smallest reduction / copy size");
ABSL_FLAG(int, min_reps, 10, "timed repetitions per size, at least");
ABSL_FLAG(int, max_reps, 10000, "timed repetitions per size, at most");
ABSL_FLAG(double, seconds_per_size, 0.2, "timed seconds per size the repetitions aim at");
ABSL_FLAG(int, passes, 3,
          "link sweeps per link class; each size keeps its fastest pass (a machine whose links slow down for "
          "seconds at a time gives the profile of its fast state)");
ABSL_FLAG(bool, all_pairs, false, "ping-pong every pair of ranks of each link class, not only the first");
ABSL_FLAG(double, percentile, 50,
          "the repetition that stands for a size: 50 (median), or e.g. 10 on a machine busy with other work");
ABSL_FLAG(bool, vendor_sweep, true,
          "last, time kcoll's auto (priced with the new profile) against MPI_Allreduce at the sweep's sizes, and save "
          "the sizes MPI wins in both forms (calibration/vendor_sizes.h): auto hands those to MPI's own collective");
ABSL_FLAG(double, vendor_finest_factor, 2,
          "the vendor sweep also measures sizes between two where the winner changes, until they are at most this "
          "factor apart (> 1; --step_factor's value: no sizes between)");
ABSL_FLAG(int, vendor_passes, 3, "vendor sweep passes; each size keeps its fastest");
ABSL_FLAG(std::string, fit, "relative",
          "what the saved fits minimise: relative (every size counts alike) or seconds (large sizes dominate)");

namespace kcoll {
namespace bench {

using calibration::CalibrationOptions;
using calibration::FitAll;
using calibration::FitWeighting;
using calibration::FormatAutoChoices;
using calibration::FormatReport;
using calibration::MakeProfile;
namespace {

CalibrationOptions OptionsFromFlags() {
  CalibrationOptions o;
  o.min_bytes = absl::GetFlag(FLAGS_min_bytes);
  o.max_bytes = absl::GetFlag(FLAGS_max_bytes);
  o.step_factor = absl::GetFlag(FLAGS_step_factor);
  o.min_local_bytes = absl::GetFlag(FLAGS_min_local_bytes);
  o.min_reps = absl::GetFlag(FLAGS_min_reps);
  o.max_reps = absl::GetFlag(FLAGS_max_reps);
  o.seconds_per_size = absl::GetFlag(FLAGS_seconds_per_size);
  o.all_pairs = absl::GetFlag(FLAGS_all_pairs);
  o.percentile = absl::GetFlag(FLAGS_percentile);
  o.passes = absl::GetFlag(FLAGS_passes);
  return o;
}

std::string CurrentDirectory() {
  char buffer[4096];
  return getcwd(buffer, sizeof(buffer)) != nullptr ? std::string(buffer) : std::string();
}

std::string OutputPath() {
  const char* bwd = GetEnv("BUILD_WORKING_DIRECTORY");
  return ResolveOutputPath(absl::GetFlag(FLAGS_out), bwd != nullptr ? bwd : "", CurrentDirectory());
}

int Cores() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

// The 1-minute load average exceeds the cores: other work competes with the ranks.
bool Busy() {
  double load[1];
  return getloadavg(load, 1) == 1 && load[0] > Cores() + 0.5;
}

// --save needs a directory for the machine's profiles (known before anything is measured).
absl::Status CheckSavable() {
  if (!absl::GetFlag(FLAGS_save)) return absl::OkStatus();
  return MachineProfilePath(MakeTopology(0, {0}, false), TransportKind::kMpi).status();
}

// --save: the profile where communicators of this shape on this machine find it (choice/machine_profiles.h).
absl::Status SaveForThisMachine(const models::Profile& profile, const Topology& topology,
                                std::optional<TransportKind> transport) {
  if (!transport.has_value()) return absl::InternalError("the measured transport is not known");
  absl::StatusOr<std::string> path = MachineProfilePath(topology, *transport);
  if (!path.ok()) return path.status();
  KCOLL_RETURN_IF_ERROR(MakeDirectories(path->substr(0, path->rfind('/'))));
  KCOLL_RETURN_IF_ERROR(models::SaveProfile(profile, *path));
  std::printf(
      "saved for this machine as %s: communicators of %d ranks on %d %snode(s) over %s given no profile "
      "price with it\n",
      path->c_str(), topology.nranks, topology.nnodes, topology.emulated ? "emulated " : "",
      std::string(TransportKindName(*transport)).c_str());
  return absl::OkStatus();
}

// Not under mpirun: start the ranks.
int Launch(const char* program) {
  int ranks = absl::GetFlag(FLAGS_ranks);
  if (ranks == 0) ranks = std::max(2, Cores());
  if (ranks < 2) {
    std::fprintf(stderr, "--ranks=%d: the calibration needs at least 2 ranks\n", ranks);
    return 2;
  }
  const int rpn = absl::GetFlag(FLAGS_ranks_per_node);
  if (rpn < 0 || (rpn > 0 && ranks % rpn != 0)) {
    std::fprintf(stderr, "--ranks_per_node=%d must be >= 0 and divide --ranks=%d\n", rpn, ranks);
    return 2;
  }
  const absl::Status writable = CheckWritable(OutputPath());
  if (!writable.ok()) {
    std::fprintf(stderr, "calibrate: %s\n", std::string(writable.message()).c_str());
    return 2;
  }
  const absl::Status savable = CheckSavable();
  if (!savable.ok()) {
    std::fprintf(stderr, "calibrate: --save: %s\n", std::string(savable.message()).c_str());
    return 2;
  }
  const CalibrationOptions o = OptionsFromFlags();
  std::vector<std::string> args = {
      absl::StrCat("--ranks=", ranks),
      absl::StrCat("--ranks_per_node=", rpn),
      absl::StrCat("--out=", OutputPath()),
      absl::StrFormat("--min_bytes=%.17g", o.min_bytes),
      absl::StrFormat("--max_bytes=%.17g", o.max_bytes),
      absl::StrFormat("--step_factor=%.17g", o.step_factor),
      absl::StrFormat("--min_local_bytes=%.17g", o.min_local_bytes),
      absl::StrCat("--min_reps=", o.min_reps),
      absl::StrCat("--max_reps=", o.max_reps),
      absl::StrFormat("--seconds_per_size=%.17g", o.seconds_per_size),
      absl::StrFormat("--percentile=%.17g", o.percentile),
      absl::StrCat("--passes=", o.passes),
      absl::StrCat("--all_pairs=", o.all_pairs ? "true" : "false"),
      absl::StrCat("--fit=", absl::GetFlag(FLAGS_fit)),
      absl::StrCat("--save=", absl::GetFlag(FLAGS_save) ? "true" : "false"),
      absl::StrCat("--vendor_sweep=", absl::GetFlag(FLAGS_vendor_sweep) ? "true" : "false"),
      absl::StrFormat("--vendor_finest_factor=%.17g", absl::GetFlag(FLAGS_vendor_finest_factor)),
      absl::StrCat("--vendor_passes=", absl::GetFlag(FLAGS_vendor_passes)),
  };
  const char* mpirun_env = GetEnv("KCOLL_MPIRUN");
  const std::string mpirun = mpirun_env != nullptr && *mpirun_env != '\0' ? mpirun_env : KCOLL_MPIRUN;
  const char* test_tmpdir = GetEnv("TEST_TMPDIR");
  const std::string self = SelfExecutable();
  const std::string binary = !self.empty() ? self : std::string(program);
  LaunchCommand command =
      MakeLaunchCommand(mpirun, binary, ranks, args, Cores(), test_tmpdir != nullptr ? test_tmpdir : "");
  std::fprintf(stderr, "[calibrate] %s\n", absl::StrJoin(command.argv, " ").c_str());
  std::fflush(stderr);
  const std::string error = ExecLaunchCommand(command);
  std::fprintf(stderr, "%s\n", error.c_str());
  return 1;
}

// Prints `status` and ends the whole job.
[[noreturn]] void Fail(int rank, const absl::Status& status) {
  std::fprintf(stderr, "calibrate (rank %d): %s\n", rank, std::string(status.message()).c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::exit(1);
}

// The vendor sweep (bench/calibration/vendor_sweep.h) on every rank, with rank 0's profile text (empty where rank 0
// has none: then nothing is measured). Rank 0 prints the table and keeps the sizes MPI won in `profile`; a sweep that
// fails leaves the profile without them and says why.
void MeasureVendorSizes(int rank, const Topology& topology, const CalibrationOptions& options,
                        std::optional<TransportKind> transport, std::string profile_text,
                        std::optional<models::Profile>& profile) {
  int length = static_cast<int>(profile_text.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (length == 0) return;
  profile_text.resize(static_cast<size_t>(length));
  MPI_Bcast(profile_text.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
  absl::StatusOr<models::Profile> parsed = models::ProfileFromJson(profile_text);
  if (!parsed.ok()) Fail(rank, parsed.status());
  VendorSweepOptions sweep;
  sweep.min_bytes = options.min_bytes;
  sweep.max_bytes = options.max_bytes;
  sweep.step_factor = options.step_factor;
  sweep.finest_factor = absl::GetFlag(FLAGS_vendor_finest_factor);
  sweep.passes = absl::GetFlag(FLAGS_vendor_passes);
  sweep.ranks_per_node = topology.emulated ? topology.uniform_ranks_per_node() : 0;
  sweep.transport = transport;
  absl::StatusOr<std::vector<calibration::VendorPoint>> points = MeasureVendorSweep(MPI_COMM_WORLD, *parsed, sweep);
  if (rank != 0) return;
  if (!points.ok()) {
    std::printf("\nAllReduce against MPI_Allreduce: not measured (%s); no size is handed to MPI\n",
                std::string(points.status().message()).c_str());
    return;
  }
  profile->vendor_all_reduce_bytes = calibration::ChooseVendorSizes(*points);
  std::printf("%s", calibration::FormatVendorSweep(*points, profile->vendor_all_reduce_bytes).c_str());
}

int RunRank(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  int kokkos_argc = 1;
  char* kokkos_argv[] = {argv[0], nullptr};
  Kokkos::initialize(kokkos_argc, kokkos_argv);
  int status_code = 0;
  {
    const int asked = absl::GetFlag(FLAGS_ranks);
    if (asked != 0 && asked != nranks) {
      Fail(rank, absl::InvalidArgumentError(absl::StrCat("--ranks=", asked, " but the MPI job has ", nranks,
                                                         " ranks (under mpirun, leave --ranks out)")));
    }
    if (rank == 0) {
      const absl::Status writable = CheckWritable(OutputPath());
      if (!writable.ok()) Fail(rank, writable);
    }
    const int rpn = absl::GetFlag(FLAGS_ranks_per_node);
    if (rpn < 0 || (rpn > 0 && nranks % rpn != 0)) {
      Fail(rank, absl::InvalidArgumentError(
                     absl::StrCat("--ranks_per_node=", rpn, " must be >= 0 and divide the ranks (", nranks, ")")));
    }
    TopologyOptions topology_options;
    topology_options.ranks_per_node = rpn;
    auto discovered = DiscoverTopology(MPI_COMM_WORLD, topology_options);
    if (!discovered.ok()) Fail(rank, discovered.status());
    const Topology& topology = *discovered;
    if (rank == 0) {
      std::printf("[calibrate] %d ranks, %s; measuring...\n", nranks, topology.Describe().c_str());
      std::fflush(stdout);
    }
    const CalibrationOptions options = OptionsFromFlags();
    auto result = CalibrateOnComm(MPI_COMM_WORLD, topology, ExecBackend::kSerial, options);
    if (!result.ok()) Fail(rank, result.status());
    // Rank 0 fits and builds the profile; every rank then needs it for the vendor sweep.
    std::optional<models::Profile> profile;
    std::string profile_text;
    if (rank == 0) {
      const FitWeighting weighting =
          absl::GetFlag(FLAGS_fit) == "seconds" ? FitWeighting::kAbsolute : FitWeighting::kRelative;
      absl::Status fitted = FitAll(*result, weighting);
      absl::StatusOr<models::Profile> made =
          fitted.ok() ? MakeProfile(*result) : absl::StatusOr<models::Profile>(fitted);
      if (!made.ok()) {
        std::fprintf(stderr, "calibrate: %s\n%s", std::string(made.status().message()).c_str(),
                     Busy() ? "(other work is running: try --percentile=10, or a quiet machine)\n" : "");
        status_code = 1;
      } else {
        profile = *std::move(made);
        std::printf("%s", FormatReport(*result, *profile).c_str());
        profile_text = models::ProfileToJson(*profile);
      }
    }
    if (absl::GetFlag(FLAGS_vendor_sweep)) {
      MeasureVendorSizes(rank, topology, options, result->transport_kind, profile_text, profile);
    }
    if (profile.has_value()) {
      const std::vector<size_t> sizes = {4096, size_t{1} << 20, size_t{64} << 20};
      std::printf("%s", FormatAutoChoices(topology, *profile, sizes).c_str());
      const std::string out = OutputPath();
      absl::Status saved = models::SaveProfile(*profile, out);
      if (saved.ok()) {
        std::printf("\nprofile saved to %s (use it with KCOLL_PROFILE=%s or CommunicatorOptions::profile_path)\n",
                    out.c_str(), out.c_str());
      } else {
        std::fprintf(stderr, "calibrate: %s\n", std::string(saved.message()).c_str());
        status_code = 1;
      }
      if (saved.ok() && absl::GetFlag(FLAGS_save)) {
        saved = SaveForThisMachine(*profile, topology, result->transport_kind);
        if (!saved.ok()) {
          std::fprintf(stderr, "calibrate: --save: %s\n", std::string(saved.message()).c_str());
          status_code = 1;
        }
      }
    }
    MPI_Bcast(&status_code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  Kokkos::finalize();
  MPI_Finalize();
  return status_code;
}

}  // namespace
}  // namespace bench
}  // namespace kcoll

int main(int argc, char** argv) {
  if (!kcoll::ParseFlagsOnly(
          argc, argv, "calibrate",
          "Measures alpha/beta per link class, gamma and memcpy bandwidth and saves a kcoll profile.\n"
          "  bazel run -c opt //bench:calibrate -- [--ranks=N] [--ranks_per_node=R] [--out=profile.json] [--save]")) {
    return 2;
  }
  const std::string fit = absl::GetFlag(FLAGS_fit);
  if (fit != "relative" && fit != "seconds") {
    std::fprintf(stderr, "calibrate: --fit=%s: must be relative or seconds\n", fit.c_str());
    return 2;
  }
  const double finest = absl::GetFlag(FLAGS_vendor_finest_factor);
  if (!(finest > 1)) {
    std::fprintf(stderr, "calibrate: --vendor_finest_factor=%g must be > 1\n", finest);
    return 2;
  }
  const int vendor_passes = absl::GetFlag(FLAGS_vendor_passes);
  if (vendor_passes < 1) {
    std::fprintf(stderr, "calibrate: --vendor_passes=%d must be at least 1\n", vendor_passes);
    return 2;
  }
  absl::Status valid = kcoll::calibration::ValidateCalibrationOptions(kcoll::bench::OptionsFromFlags());
  if (!valid.ok()) {
    std::fprintf(stderr, "calibrate: --%s\n", std::string(valid.message()).c_str());
    return 2;
  }
  if (!kcoll::bench::StartedByMpiLauncher()) return kcoll::bench::Launch(argv[0]);
  return kcoll::bench::RunRank(argc, argv);
}
